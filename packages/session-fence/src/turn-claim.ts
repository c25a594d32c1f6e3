import { randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type {
  ClaimTurnOptions,
  ClaimTurnResult,
  SessionStorage,
  SessionTurnClaims,
  StorageCallOptions,
  TranscriptChangeKind,
  TurnClaim,
  TurnClaimHolder,
} from '@keel/spec';
import { abortableDelay } from './abortable-delay';
import { observeLock } from './lock-file';
import { createQueuedAppends } from './queued-appends';
import { RELEASED_READ, releasedProperty } from './released-property';
import { errorCode } from './safe-file';
import { SessionTakeoverError } from './session-fence-error';
import {
  createSessionLockWith,
  type InternalSessionLock,
  type SessionLockHandle,
} from './session-lock';
import { type StoreContext, serialized } from './store-context';

/** What `<id>.turn` holds: the last claim of the session (never removed: its token only grows). */
interface ClaimRecord extends TurnClaimHolder {
  /** The owner token of the lock file the claim was taken with. */
  lock: string;
}

/** The lock never refreshes itself: only `heartbeat()` does, so a frozen turn loses its claim. */
const NO_HEARTBEAT_MS = 2 ** 31 - 1;
/** How long a reader waits for a claim just taken to write its record. */
const RECORD_WAIT_MS = 2_000;

/**
 * The file store's turn claims, built on its lock: `<id>.turn.lock` is a session lock (owner
 * record, heartbeat by mtime, stale after the claim's ttl or when its holder's pid is dead) held
 * for the whole turn, and `<id>.turn` records who holds it and the claim's token, rewritten
 * (write, then rename) by each new holder under the lock. Queued appends: `queued-appends.ts`.
 */
export function createFileTurnClaims(
  context: StoreContext,
  storage: () => SessionStorage,
): SessionTurnClaims {
  const staleMs = context.lock.staleMs ?? 10_000;
  const locks = new Map<string, InternalSessionLock>();
  const pathOf = context.sessionPath;
  const lockOf = (sessionId: string): InternalSessionLock => {
    const path = pathOf(sessionId, '.turn.lock');
    let lock = locks.get(path);
    if (lock === undefined) {
      lock = createSessionLockWith(context.fileSystem, {
        ...context.lock,
        path,
        heartbeatMs: NO_HEARTBEAT_MS,
      });
      locks.set(path, lock);
    }
    return lock;
  };

  async function readRecord(sessionId: string): Promise<ClaimRecord | undefined> {
    try {
      return JSON.parse(await readFile(pathOf(sessionId, '.turn'), 'utf8')) as ClaimRecord;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  async function writeRecord(sessionId: string, record: ClaimRecord): Promise<void> {
    const path = pathOf(sessionId, '.turn');
    const temporary = `${path}.${randomUUID()}.tmp`;
    await writeFile(temporary, `${JSON.stringify(record)}\n`, { flush: context.durable });
    await rename(temporary, path);
  }

  /** The live holder: the lock is held and not stale, and the record is the lock's own. */
  async function currentTurn(
    sessionId: string,
    options: StorageCallOptions = {},
  ): Promise<TurnClaimHolder | undefined> {
    const deadline = Date.now() + RECORD_WAIT_MS;
    for (;;) {
      options.signal?.throwIfAborted();
      const path = pathOf(sessionId, '.turn.lock');
      const seen = await observeLock({ fileSystem: context.fileSystem, path, staleMs });
      if (seen === undefined || seen.stale) return undefined;
      const record = await readRecord(sessionId);
      if (record !== undefined && seen.owner !== undefined && record.lock === seen.owner.token) {
        return { owner: record.owner, turnId: record.turnId, token: record.token };
      }
      // A claim just taken: its lock's owner record or its claim record is still on its way.
      if (Date.now() > deadline && record !== undefined) {
        return { owner: record.owner, turnId: record.turnId, token: record.token };
      }
      await abortableDelay(10, options.signal);
    }
  }

  async function claimTurn(sessionId: string, options: ClaimTurnOptions): Promise<ClaimTurnResult> {
    options.signal?.throwIfAborted();
    await context.ensureDirectory();
    const lock = lockOf(sessionId);
    const handle = await serialized(lock.path, () =>
      lock.tryAcquire({
        ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }),
    );
    if (handle === undefined) {
      const holder = await currentTurn(sessionId, options);
      // Released in between: one more try.
      if (holder === undefined) return claimTurn(sessionId, options);
      return { claimed: false, holder };
    }
    try {
      const previous = await readRecord(sessionId);
      const token = (BigInt(previous?.token ?? '0') + 1n).toString();
      const record: ClaimRecord = {
        owner: options.owner,
        turnId: options.turnId,
        token,
        lock: handle.owner.token,
      };
      await writeRecord(sessionId, record);
      await pruneLedger(sessionId);
      // Granted as the caller gave up: nobody would release it.
      options.signal?.throwIfAborted();
      return { claimed: true, claim: createClaim(sessionId, record, handle) };
    } catch (error) {
      await handle.release();
      throw error;
    }
  }

  function createClaim(
    sessionId: string,
    record: ClaimRecord,
    handle: SessionLockHandle,
  ): TurnClaim {
    let released = false;
    /** What ended this claim, or `undefined` while it holds. */
    const change = async (): Promise<TranscriptChangeKind | undefined> => {
      const current = await readRecord(sessionId);
      if (current !== undefined && BigInt(current.token) > BigInt(record.token)) {
        return 'stale-token';
      }
      return released || !(await handle.isHeld()) ? 'lock-lost' : undefined;
    };
    const claim: Omit<TurnClaim, 'released'> & { [RELEASED_READ]: () => boolean } = {
      [RELEASED_READ]: () => released,
      sessionId,
      owner: record.owner,
      turnId: record.turnId,
      token: record.token,
      async isHeld(callOptions: StorageCallOptions = {}) {
        callOptions.signal?.throwIfAborted();
        return (await change()) === undefined;
      },
      async heartbeat(callOptions: StorageCallOptions = {}) {
        callOptions.signal?.throwIfAborted();
        const lost = (await change()) ?? ((await handle.renew()) ? undefined : 'lock-lost');
        if (lost !== undefined) {
          throw new SessionTakeoverError({ sessionId, phase: 'fence_check', change: lost });
        }
      },
      async release() {
        if (released) return;
        released = true;
        await handle.release();
      },
    };
    return Object.setPrototypeOf(claim, releasedProperty) as TurnClaim;
  }

  const { pruneLedger, ...queued } = createQueuedAppends(
    storage,
    (sessionId) => pathOf(sessionId, '.queued'),
    context.durable,
  );
  return { claimTurn, currentTurn, ...queued };
}
