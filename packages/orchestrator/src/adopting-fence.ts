import type {
  MessageEntry,
  SessionFence,
  SessionTurnClaims,
  StorageCallOptions,
  TranscriptState,
} from '@keel/spec';

/**
 * The turn claim a turn runs under was handed over by the session's turn before it here, whose
 * transcript ended at `since`: what other gateways queued after that (before this turn took the
 * lease) was queued for this gateway's turns too.
 */
export interface HandedOver {
  claims: SessionTurnClaims;
  since: TranscriptState;
}

/**
 * The fence a turn uses, telling it what its fence adopted: after each check, release,
 * reacquire, write or end (settled either way), the queued messages of other gateways the fence
 * took since (`takeAdopted`) go to `onAdopted`, before the caller goes on, so the turn's entries
 * keep the transcript's order. With `handedOver`, `acquire` also adopts what other gateways
 * queued since the turn before (nothing when anything else was written; a store failure there
 * leaves them to be answered as before: once the claim is free). A fence without `takeAdopted`
 * is returned as it is.
 */
export function adoptingFence(
  fence: SessionFence,
  onAdopted: (messages: MessageEntry[]) => void,
  handedOver?: HandedOver,
): SessionFence {
  const take = fence.takeAdopted?.bind(fence);
  if (take === undefined) return fence;
  const handOut = () => {
    const messages = take();
    if (messages.length > 0) onAdopted(messages);
  };
  /** Under the lease `acquire` took: nothing else is written meanwhile. */
  const adoptSince = async ({ claims, since }: HandedOver, signal?: AbortSignal) => {
    const options: StorageCallOptions = signal === undefined ? {} : { signal };
    const seen = await claims.queuedSince(fence.sessionId, since, options).catch(() => undefined);
    if (seen === undefined || seen.change !== undefined || seen.entries === undefined) return;
    const messages = seen.entries.filter(
      (entry): entry is MessageEntry => entry.type === 'message' && entry.role === 'user',
    );
    if (messages.length > 0 && messages.length === seen.entries.length) onAdopted(messages);
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
  const adopting: Omit<SessionFence, keyof typeof fenceProperties> & { [INNER]: SessionFence } = {
    [INNER]: fence,
    acquire: async (options) => {
      await fence.acquire(options);
      if (handedOver !== undefined) await adoptSince(handedOver, options?.signal);
    },
    release: after((options) => fence.release(options)),
    reacquire: after((options) => fence.reacquire(options)),
    append: after((entries, options) => fence.append(entries, options)),
    check: after((options) => fence.check(options)),
    end: after((options) => fence.end(options)),
    // Handed out here already: the turn never needs to ask.
    takeAdopted: () => [],
  };
  // The read-only properties come from the prototype (see `fenceProperties`).
  return Object.setPrototypeOf(adopting, fenceProperties) as SessionFence;
}

/** The fence an adopting fence wraps. */
const INNER = Symbol('inner fence');

/**
 * An adopting fence's read-only properties, its inner fence's, one set for every adopting fence
 * (their prototype). Not getters in each one's own literal: V8 allocates an object's own accessor
 * pair in the old generation, and through it the getter's closure would keep the turn it closes
 * over alive through every scavenge until the next full collection (CONTRIBUTING.md, "Objects on
 * the hot path").
 */
const fenceProperties = {
  get sessionId(): string {
    return (this as unknown as { [INNER]: SessionFence })[INNER].sessionId;
  },
  get status(): SessionFence['status'] {
    return (this as unknown as { [INNER]: SessionFence })[INNER].status;
  },
  get takeover(): SessionFence['takeover'] {
    return (this as unknown as { [INNER]: SessionFence })[INNER].takeover;
  },
  get state(): SessionFence['state'] {
    return (this as unknown as { [INNER]: SessionFence })[INNER].state;
  },
};
