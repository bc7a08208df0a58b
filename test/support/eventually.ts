/**
 * Waiting for something another connection or process makes true (a change heard over the change
 * feed, a listener back after a drop).
 */

/** Waits until `check` holds, polling every 10 ms, for at most `ms`; returns whether it held. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 1_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return check();
}
