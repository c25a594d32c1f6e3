import type { MessageEntry, SessionFence } from '@keel/spec';

/**
 * The fence a turn uses, telling it what its fence adopted: after each check, release,
 * reacquire, write or end (settled either way), the queued messages of other gateways the fence
 * took since (`takeAdopted`) go to `onAdopted`, before the caller goes on, so the turn's entries
 * keep the transcript's order. A fence without `takeAdopted` is returned as it is.
 */
export function adoptingFence(
  fence: SessionFence,
  onAdopted: (messages: MessageEntry[]) => void,
): SessionFence {
  const take = fence.takeAdopted?.bind(fence);
  if (take === undefined) return fence;
  const handOut = () => {
    const messages = take();
    if (messages.length > 0) onAdopted(messages);
  };
  const after =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } finally {
        handOut();
      }
    };
  return {
    get sessionId() {
      return fence.sessionId;
    },
    get status() {
      return fence.status;
    },
    get takeover() {
      return fence.takeover;
    },
    get state() {
      return fence.state;
    },
    acquire: (options) => fence.acquire(options),
    release: after((options) => fence.release(options)),
    reacquire: after((options) => fence.reacquire(options)),
    append: after((entries, options) => fence.append(entries, options)),
    check: after((options) => fence.check(options)),
    end: after((options) => fence.end(options)),
    // Handed out here already: the turn never needs to ask.
    takeAdopted: () => [],
  };
}
