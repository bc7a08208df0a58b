/**
 * The end of a stream's life (`Limits.streamMaxLifetimeMs`): every door that holds a stream open (the
 * definitions stream, GraphQL over SSE and over WebSocket) ends it cleanly then, so that its client
 * reconnects and is authorised afresh. Each stream's lifetime is the configured maximum less up to a
 * tenth at random, so that streams opened together (every client reconnecting after a deploy) do not
 * all end, and reconnect, together.
 */

/** The share of the maximum lifetime a stream may end earlier by, at random. */
const JITTER = 0.1;

/**
 * Calls `end` once this stream's lifetime (at most `maxLifetimeMs`) is over; returns the function
 * that cancels it (call it when the stream ends otherwise). The timer keeps no process alive.
 */
export function atStreamLifetimeEnd(maxLifetimeMs: number, end: () => void): () => void {
  const timer = setTimeout(end, maxLifetimeMs - Math.floor(Math.random() * maxLifetimeMs * JITTER));
  timer.unref();
  return () => clearTimeout(timer);
}
