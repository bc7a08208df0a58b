/**
 * Server-Sent Events as the tests read them: a GET (the definitions stream) or a POST (a GraphQL
 * subscription, `Accept: text/event-stream`) held open, its events parsed as they come (WHATWG HTML
 * §9.2.6 "Interpreting an event stream", the fields tests use: `id`, `event`, `data`, comments).
 */

/** One event. */
export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** An open stream. */
export interface SseStream {
  status: number;
  headers: Headers;
  /** The body when the answer is not a stream (an error). */
  errorBody: string | undefined;
  /** Comment lines heard so far (`: heartbeat`). */
  comments: string[];
  /** The next event, rejecting after `timeoutMs` (default 5 s). */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** Events that arrive within `ms`. */
  collect(ms: number): Promise<SseEvent[]>;
  close(): void;
}

/** Opens `url` with `init` and parses its events. */
export async function openSse(url: string, init: RequestInit = {}): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    ...init,
    headers: { accept: "text/event-stream", ...(init.headers as Record<string, string>) },
    signal: controller.signal,
  });
  const streamed = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
  const errorBody = streamed ? undefined : await response.text();
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waker: { wake: (() => void) | null } = { wake: null };
  let ended = false;
  if (streamed && response.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end = buffer.indexOf("\n\n");
          while (end !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event: SseEvent = { id: undefined, event: undefined, data: "" };
            const data: string[] = [];
            for (const line of block.split("\n")) {
              if (line.startsWith(":")) comments.push(line.slice(1).trim());
              else if (line.startsWith("id:")) event.id = line.slice(3).trim();
              else if (line.startsWith("event:")) event.event = line.slice(6).trim();
              else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
            }
            if (data.length > 0) {
              event.data = data.join("\n");
              events.push(event);
            }
            end = buffer.indexOf("\n\n");
          }
          waker.wake?.();
        }
      } catch {
        // aborted by close()
      } finally {
        ended = true;
        waker.wake?.();
      }
    })();
  }
  const next = async (timeoutMs = 5_000): Promise<SseEvent> => {
    const deadline = Date.now() + timeoutMs;
    while (events.length === 0) {
      if (ended) throw new Error("the stream ended");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waker.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      waker.wake = null;
    }
    return events.shift()!;
  };
  return {
    status: response.status,
    headers: response.headers,
    errorBody,
    comments,
    next,
    async collect(ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return events.splice(0);
    },
    close: () => controller.abort(),
  };
}

/** Opens a GraphQL subscription over SSE on `baseUrl` with `key`. */
export function subscribeSse(
  baseUrl: string,
  key: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<SseStream> {
  return openSse(`${baseUrl}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
}
