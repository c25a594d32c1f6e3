// Just over our ~400 lines on purpose: `createSessionFence` is one closure over a fence's state (its
// status, lease, kept lease, expected transcript and step queue) that every method reads and moves;
// what does not need that state lives beside it (file-lease.ts, session-fence-error.ts, session-id.ts).
import type {
  AppendResult,
  FlushMode,
  LeaseEvent,
  MessageEntry,
  SessionFenceStatus,
  SessionLease,
  SessionStorage,
  SessionTakeoverPhase,
  SessionFence as SpecSessionFence,
  TranscriptChangeKind,
  TranscriptEntry,
  TranscriptState,
} from '@keel/spec';
import { FENCE_READS, type FenceReads, fenceProperties } from './fence-properties';
import { type ParkedLease, parkLease, releaseNow } from './file-lease';
import { SessionFenceError, SessionTakeoverError } from './session-fence-error';
import { assertValidSessionId } from './session-id';

export interface SessionFenceOptions {
  /** Any implementation of the spec's storage port: the fence uses nothing else. */
  storage: SessionStorage;
  sessionId: string;
  /** Lease acquire timeout for every lease the fence takes; default: the storage's. */
  lockTimeoutMs?: number;
  /** Lease ttl; default: the storage's. */
  leaseTtlMs?: number;
  /** Observes the fence's leases (`lease-renew-failed`, `lease-lost`); must not throw. */
  onLeaseEvent?: (event: LeaseEvent) => void;
}

/**
 * The spec's `SessionFence` (one turn's hold on a session; calls serialised; a takeover is sticky),
 * with the takeover typed as this package's `SessionTakeoverError`.
 */
export interface SessionFence extends SpecSessionFence {
  readonly takeover: SessionTakeoverError | undefined;
  takeAdopted(): MessageEntry[];
}

/** Appends that share one write: the first one's queued step, and those that joined it meanwhile. */
interface AppendBatch {
  members: Array<{
    entries: readonly TranscriptEntry[];
    signal: AbortSignal | undefined;
    /** `deferred` and `with-next`: resolved once written, not flushed yet. */
    flush: FlushMode;
  }>;
  /** The members whose entries the write carried (not aborted when it started). */
  written: Set<AppendBatch['members'][number]>;
  result: Promise<AppendResult>;
}

/** Creates the fence for one turn of one session. */
export function createSessionFence(options: SessionFenceOptions): SessionFence {
  const { storage, sessionId } = options;
  assertValidSessionId(sessionId);
  let status: SessionFenceStatus = 'idle';
  let lease: SessionLease | undefined;
  let expected: TranscriptState | undefined;
  let takeover: SessionTakeoverError | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  // The append waiting its turn in the queue: appends called meanwhile join it (group commit).
  let openBatch: AppendBatch | undefined;
  // Queued messages of other gateways adopted and not handed out yet (`takeAdopted`).
  let adopted: MessageEntry[] = [];
  // Appends left out because another gateway queued the same client messages meanwhile.
  const copies = new WeakSet<AppendBatch['members'][number]>();
  // The client message ids of every queued message adopted so far (by any step, not only a write).
  const adoptedClientIds = new Set<string>();
  // The flush of the last deferred append, while it may still run: the next write waits for it
  // and fails with its error (nothing written after an entry may be durable before it is).
  let flushing: Promise<void> | undefined;
  // The last step under the held lease was an owned write, which checked the lease and the state
  // in one step with it: the transcript is `expected` as of that write, nothing to check again.
  let checkedByWrite = false;
  // The last step under the held lease compared `expected` with the transcript (acquire,
  // reacquire, check): an owned write right after it may take that comparison for its own.
  let checkedByRead = false;
  // Released, the lease kept while nobody asks for it (`parkLease`): `lease` is still set.
  let parked: ParkedLease | undefined;

  /**
   * Runs `task` after every earlier step; it learns whether the step before was an owned write,
   * and whether it was a comparison under the held lease.
   */
  function serial<T>(
    task: (afterOwnWrite: boolean, afterCheck: boolean) => Promise<T>,
  ): Promise<T> {
    openBatch = undefined;
    const result = queue.then(() => {
      const afterOwnWrite = checkedByWrite;
      const afterCheck = checkedByRead;
      checkedByWrite = false;
      checkedByRead = false;
      return task(afterOwnWrite, afterCheck);
    });
    queue = result.catch(() => undefined);
    return result;
  }

  /** Writes a batch's entries in one append (one write, one fsync), as the fence's next step. */
  async function writeBatch(batch: AppendBatch, afterCheck: boolean): Promise<AppendResult> {
    if (openBatch === batch) openBatch = undefined;
    // A member that gave up before its turn came is left out; once the write starts, it runs to
    // the end for everyone (one member's abort must not undo the others' messages).
    for (const member of batch.members) if (!member.signal?.aborted) batch.written.add(member);
    const members = [...batch.written];
    if (members.length === 0) throw batch.members[0]?.signal?.reason;
    const signal = members.length === 1 ? members[0]?.signal : undefined;
    const flush = sharedFlush(members);
    assertStatus(['held', 'released'], 'append through');
    currentExpected(); // no recorded state: refused before a lease is taken
    await flushing;
    // A kept lease lost meanwhile is let go: the write then takes one, as after a release.
    if (parked !== undefined && !(await parked.stillHeld())) await letGo(true);
    // Released without a kept lease: one is taken for the write.
    const temporary = lease === undefined;
    const writeLease = temporary ? await takeLease(signal) : lease;
    // Right after a comparison under this very lease, the write takes it for its own (the next
    // check, a reacquire or the end, compares again); not once it had to adopt queued messages.
    let justChecked = afterCheck && !temporary && status === 'held';
    try {
      for (let state = currentExpected(); ; state = currentExpected()) {
        try {
          // Copies of messages adopted so far: by an earlier step (the caller looked before it
          // ran) or by this write's last try.
          leaveOutCopies(batch);
          if (batch.written.size === 0) return { state };
          const result = await storage.append(
            sessionId,
            [...batch.written].flatMap((member) => member.entries),
            {
              lease: writeLease,
              expected: state,
              checkedJustBefore: justChecked,
              ...(signal === undefined ? {} : { signal }),
              ...(flush === 'before-return' ? {} : { flush }),
            },
          );
          expected = result.state;
          if (result.durable !== undefined) flushing = result.durable;
          checkedByWrite = !temporary;
          return result;
        } catch (error) {
          // Queued messages written meanwhile: adopted under this lease, then the write again
          // (without the user messages another gateway queued the same client message as).
          if (
            SessionTakeoverError.isInstance(error) &&
            error.change === 'appended' &&
            (await adoptQueued(signal, true))
          ) {
            justChecked = false;
            continue;
          }
          throw error;
        }
      }
    } catch (error) {
      // Awaited here, so the rejection is handled before `finally` lets the lease go.
      if (SessionTakeoverError.isInstance(error)) {
        return await takenOver('write', error.change, error);
      }
      throw error;
    } finally {
      if (temporary) await writeLease?.release();
    }
  }

  /**
   * Leaves out of the batch each append of user messages only, one of which another gateway
   * queued with the same `clientMessageId` and this fence adopted (a retry that reached two
   * gateways at once): the message is stored once, as queued; that append fails
   * (`SessionFenceError`).
   */
  function leaveOutCopies(batch: AppendBatch): void {
    if (adoptedClientIds.size === 0) return;
    for (const member of batch.written) {
      const userMessagesOnly = member.entries.every(
        (entry) => entry.type === 'message' && entry.role === 'user',
      );
      const copy = member.entries.some(
        (entry) =>
          entry.type === 'message' &&
          entry.clientMessageId !== undefined &&
          adoptedClientIds.has(entry.clientMessageId),
      );
      if (userMessagesOnly && copy) {
        batch.written.delete(member);
        copies.add(member);
      }
    }
  }

  /** The lease options every call shares, made once (the signal is each call's own). */
  const leaseOptions = {
    ...(options.lockTimeoutMs === undefined ? {} : { timeoutMs: options.lockTimeoutMs }),
    ...(options.leaseTtlMs === undefined ? {} : { ttlMs: options.leaseTtlMs }),
    ...(options.onLeaseEvent === undefined ? {} : { onEvent: options.onLeaseEvent }),
  };
  function takeLease(signal: AbortSignal | undefined): Promise<SessionLease> {
    // A literal that starts with a spread is slow to make (CONTRIBUTING.md, "Objects on the hot path").
    return storage.lease(
      sessionId,
      signal === undefined ? leaseOptions : { signal, ...leaseOptions },
    );
  }

  function assertStatus(allowed: SessionFenceStatus[], action: string): void {
    if (takeover) throw takeover;
    if (!allowed.includes(status)) {
      throw new SessionFenceError({
        message: `Cannot ${action} a session fence that is ${status}`,
      });
    }
  }

  /**
   * Lets the lease go: over this package's store, kept for the session's next lease while nobody
   * asks for it; `now` (a takeover, a failed acquire) lets the lock go at once.
   */
  async function letGo(now = false): Promise<void> {
    const held = lease;
    lease = undefined;
    parked?.unpark();
    parked = undefined;
    if (held !== undefined) await (now ? releaseNow(held) : held.release());
  }

  /**
   * A waiter asked for the kept lease: it is let go as the fence's next step (never in the middle
   * of one), unless it was taken back or let go meanwhile.
   */
  function yieldParked(park: ParkedLease): void {
    const step = queue.then(async () => {
      if (parked === park) await letGo();
    });
    queue = step.catch(() => undefined);
  }

  /** Records the sticky takeover, lets go, and throws it. */
  async function takenOver(
    phase: SessionTakeoverPhase,
    change: TranscriptChangeKind,
    cause?: unknown,
  ): Promise<never> {
    takeover = new SessionTakeoverError({ sessionId, phase, change, cause });
    await letGo(true);
    if (status !== 'ended') status = 'released';
    throw takeover;
  }

  /**
   * Whether everything written since the expected state is queued user messages of other
   * gateways: if so they are adopted (the state advances, the messages wait for `takeAdopted`).
   * `queuedSince` is asked under a lease: the fence's own, or one taken for the question.
   */
  async function adoptQueued(
    signal: AbortSignal | undefined,
    leaseHeld: boolean,
  ): Promise<boolean> {
    const claims = storage.turnClaims;
    if (claims === undefined) return false;
    const temporary = leaseHeld ? undefined : await takeLease(signal);
    try {
      const seen = await claims.queuedSince(
        sessionId,
        currentExpected(),
        signal === undefined ? {} : { signal },
      );
      if (seen.change !== undefined || seen.queued === 0 || seen.entries === undefined)
        return false;
      const messages = seen.entries.filter(
        (entry): entry is MessageEntry => entry.type === 'message' && entry.role === 'user',
      );
      if (messages.length !== seen.entries.length) return false;
      expected = seen.state;
      adopted.push(...messages);
      for (const message of messages)
        if (message.clientMessageId !== undefined) adoptedClientIds.add(message.clientMessageId);
      return true;
    } finally {
      await temporary?.release();
    }
  }

  function currentExpected(): TranscriptState {
    if (expected === undefined)
      throw new SessionFenceError({ message: 'Session fence has no recorded state' });
    return expected;
  }

  /**
   * Compares with the expected state (and, while held, that the lease is still current, unless
   * `leaseChecked`: it was taken just now, and the next owned write checks it again, atomically;
   * or the step before was an owned write, which checked it atomically with the write).
   */
  async function verify(
    phase: SessionTakeoverPhase,
    signal: AbortSignal | undefined,
    leaseChecked = false,
  ): Promise<void> {
    const state = currentExpected();
    const held = status === 'held' && !leaseChecked ? lease : undefined;
    const [leaseHeld, change] = await Promise.all([
      held === undefined ? true : held.isHeld({ signal }),
      storage.compare(sessionId, state, { signal }),
    ]);
    if (!leaseHeld) await takenOver(phase, 'lock-lost');
    if (change === 'appended' && (await adoptQueued(signal, lease !== undefined))) return;
    if (change !== undefined) await takenOver(phase, change);
  }

  const fence: Omit<SessionFence, keyof FenceReads> & { [FENCE_READS]: FenceReads } = {
    [FENCE_READS]: {
      status: () => status,
      takeover: () => takeover,
      state: () => expected,
    },
    sessionId,

    acquire(callOptions = {}) {
      return serial(async () => {
        assertStatus(['idle'], 'acquire');
        lease = await takeLease(callOptions.signal);
        try {
          expected = await storage.state(sessionId, callOptions);
        } catch (error) {
          await letGo(true);
          throw error;
        }
        status = 'held';
        checkedByRead = true;
      });
    },

    release(callOptions = {}) {
      return serial(async (afterOwnWrite) => {
        assertStatus(['held'], 'release');
        // A passing check means the transcript is exactly `expected`; it is kept as is. Reading
        // the state again here would absorb a write that slipped in between check and read.
        // Right after an owned write there is nothing to check: the write was the check, and a
        // write that lands after it is noticed at `reacquire`.
        if (!afterOwnWrite) await verify('fence_check', callOptions.signal);
        status = 'released';
        // Kept while nobody asks for it (a waiter's ask lets it go at once, or at the next
        // heartbeat for a waiter of another process); reacquire then costs no new lease.
        const held = lease;
        const park =
          held === undefined
            ? undefined
            : parkLease(held, () => {
                if (park !== undefined) yieldParked(park);
              });
        if (park === undefined) await letGo();
        else parked = park;
      });
    },

    reacquire(callOptions = {}) {
      return serial(async () => {
        assertStatus(['released'], 'reacquire');
        const park = parked;
        parked = undefined;
        park?.unpark();
        // A kept lease still holding its lock was held the whole time: only the transcript is
        // checked. One lost meanwhile is let go, and a new one taken, as after a release.
        if (park === undefined || !(await park.stillHeld())) {
          await letGo(true);
          lease = await takeLease(callOptions.signal);
        }
        status = 'held';
        await verify('prompt_reacquire', callOptions.signal, true);
        checkedByRead = true;
      });
    },

    append(entries, callOptions = {}) {
      const member = {
        entries,
        signal: callOptions.signal,
        flush: callOptions.flush ?? 'before-return',
      };
      let batch = openBatch;
      if (batch === undefined) {
        const created: AppendBatch = {
          members: [],
          written: new Set(),
          result: undefined as never,
        };
        created.result = serial((_afterOwnWrite, afterCheck) => writeBatch(created, afterCheck));
        openBatch = batch = created;
      }
      batch.members.push(member);
      const written = batch.written;
      return batch.result.then(async (result) => {
        if (copies.has(member)) {
          throw new SessionFenceError({
            message: `A client message was queued by another gateway meanwhile (session ${sessionId}): stored once, not written here`,
          });
        }
        if (!written.has(member)) throw member.signal?.reason;
        // A member that did not ask to defer gets its answer once the shared write is durable.
        if (member.flush === 'before-return') await result.durable;
        return result;
      });
    },

    check(callOptions = {}) {
      return serial(async () => {
        assertStatus(['held', 'released'], 'check');
        await verify('fence_check', callOptions.signal);
        checkedByRead = status === 'held';
      });
    },

    takeAdopted() {
      const taken = adopted;
      adopted = [];
      return taken;
    },

    end(callOptions = {}) {
      return serial(async (afterOwnWrite) => {
        if (status === 'ended') return;
        const wasTakenOver = takeover !== undefined;
        try {
          // Right after an owned write the lease needs no check (the write checked it, and
          // nothing is written after it); the transcript still does: a write may land after it.
          if (!wasTakenOver && (status === 'held' || status === 'released'))
            await verify('cleanup', callOptions.signal, afterOwnWrite);
        } finally {
          await letGo();
          status = 'ended';
        }
      });
    },
  };
  // The read-only properties come from the prototype (see `fenceProperties`).
  return Object.setPrototypeOf(fence, fenceProperties) as SessionFence;
}

/**
 * How a shared write is flushed: `with-next` only when every append in it asked for that;
 * otherwise `deferred` when any did (one that asked for `before-return` waits for `durable`).
 */
function sharedFlush(members: ReadonlyArray<{ flush: FlushMode }>): FlushMode {
  if (members.every((member) => member.flush === 'with-next')) return 'with-next';
  return members.some((member) => member.flush !== 'before-return') ? 'deferred' : 'before-return';
}
