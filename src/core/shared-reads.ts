/**
 * Reads shared by every subscriber of one live event. A committed change reaches each open
 * subscription of its project as the same event object (live-changes.ts); each subscription then
 * resolves what its client selected, through the services, as its own actor. The stored rows such
 * an event names (the flag, the experiment) are the same whoever asks, so they are read once per
 * event and handed to every subscriber: one statement per change, not one per subscriber. Actor
 * checks (`authorizeProject`) still run per subscriber, on the shared rows. Outside an event (queries,
 * mutations, REST) nothing is shared: `sharedRead` just reads.
 */
/** The reads of one event, by key; a read's answer (or its error) is every asker's. */
export class SharedReads {
  private readonly reads = new Map<string, Promise<unknown>>();

  /** The answer of `load` for `key`: loaded by the first asker, the same promise for the others. */
  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    let answer = this.reads.get(key) as Promise<T> | undefined;
    if (!answer) {
      answer = load();
      this.reads.set(key, answer);
    }
    return answer;
  }
}

const byEvent = new WeakMap<object, SharedReads>();

/** The shared reads of `event` (one object per event, collected with it). */
export function sharedReadsOf(event: object): SharedReads {
  let reads = byEvent.get(event);
  if (!reads) {
    reads = new SharedReads();
    byEvent.set(event, reads);
  }
  return reads;
}

/**
 * Reads `key` with `load`, shared with every other subscriber of the event `ctx` resolves, if any
 * (`ServiceContext.shared`; `ctx` is any context that may carry them). `key` must name the row
 * (table and ids), never the actor: the answer must not depend on who asks.
 */
export function sharedRead<T>(
  ctx: { readonly shared?: SharedReads | undefined },
  key: string,
  load: () => Promise<T>,
): Promise<T> {
  return ctx.shared ? ctx.shared.read(key, load) : load();
}
