/**
 * The headers of an SDK door's answer, in the order they are sent: one list for the door's fastify
 * handler and for answers given from memory (./known-answers.ts), so both write the same bytes.
 */
import type { IncomingHttpHeaders } from "node:http";
import { corsHeaders, exposeHeaders } from "./cors.js";
import type { SdkReply } from "./route.js";

/**
 * The CORS headers (./cors.ts), the body's type when the reply names one, the reply's own headers,
 * and the CORS header that lets a page read those.
 */
export function answerHeaders(request: IncomingHttpHeaders, reply: SdkReply): Record<string, string> {
  const own = reply.headers ?? {};
  return {
    ...corsHeaders(request),
    ...(reply.contentType ? { "Content-Type": reply.contentType } : {}),
    ...own,
    ...exposeHeaders(request, own),
  };
}
