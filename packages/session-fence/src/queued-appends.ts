import { appendFile, readFile, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type {
  AppendResult,
  QueuedSince,
  SessionStorage,
  StorageCallOptions,
  TranscriptEntry,
  TranscriptState,
  WaitForChangeOptions,
} from '@keel/spec';
import { releaseNow } from './file-lease';
import { createFileSessionChanges } from './file-session-changes';
import { errorCode } from './safe-file';
import { SessionFenceError } from './session-fence-error';

/** One queued append: the transcript's state before it and right after it. */
interface QueuedAppend {
  before: TranscriptState;
  after: TranscriptState;
}

/**
 * The same point of the same transcript. Called only once `compare` found the transcript grew
 * from `b` (`appended`: the part before it unchanged), so identity and size name it.
 */
function samePoint(a: TranscriptState, b: TranscriptState): boolean {
  return a.exists === b.exists && a.identity === b.identity && a.size === b.size;
}

/**
 * Queued appends of the file store: each is written under a lease of its own, and `<id>.queued`
 * (one JSON line per append: the states before and after) records it before the lease is let go,
 * so a turn that takes the lease sees both or neither. A message whose every copy is stored
 * already (a client's retry) is found before any lease is taken.
 */
export function createQueuedAppends(
  storage: () => SessionStorage,
  ledgerPath: (sessionId: string) => string,
  durable: boolean,
) {
  async function readLedger(sessionId: string): Promise<QueuedAppend[]> {
    let text: string;
    try {
      text = await readFile(ledgerPath(sessionId), 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw error;
    }
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as QueuedAppend];
        } catch {
          return []; // a torn last line: that append was not recorded, so it is no queued one
        }
      });
  }

  async function appendQueued(
    sessionId: string,
    entries: readonly TranscriptEntry[],
    options: StorageCallOptions = {},
  ): Promise<AppendResult> {
    for (const entry of entries) {
      if (entry.type !== 'message' || entry.role !== 'user') {
        throw new SessionFenceError({
          message: `Only user messages can be queued for a running turn, not a ${entry.type === 'message' ? `${entry.role} message` : entry.type}`,
        });
      }
    }
    const store = storage();
    const storedIds = async (): Promise<Set<string>> => {
      const stored = new Set<string>();
      for (const entry of (await store.read(sessionId, options)).entries) {
        if (entry.type === 'message' && entry.clientMessageId !== undefined)
          stored.add(entry.clientMessageId);
      }
      return stored;
    };
    const ids = entries.flatMap((entry) =>
      entry.type === 'message' && entry.clientMessageId !== undefined
        ? [entry.clientMessageId]
        : [],
    );
    // Every message a copy of one stored already (a client's retry): found before any lease.
    if (ids.length > 0 && ids.length === entries.length) {
      const stored = await storedIds();
      if (ids.every((id) => stored.has(id)))
        return { state: await store.state(sessionId, options) };
    }
    const lease = await store.lease(sessionId, options);
    try {
      const before = await store.state(sessionId, options);
      // A client's message queued at two gateways at once (a retry) is stored once.
      const stored = ids.length > 0 ? await storedIds() : new Set<string>();
      const fresh = entries.filter(
        (entry) =>
          entry.type !== 'message' ||
          entry.clientMessageId === undefined ||
          !stored.has(entry.clientMessageId),
      );
      if (fresh.length === 0) return { state: before };
      const result = await store.append(sessionId, fresh, {
        ...options,
        lease,
        expected: before,
      });
      const line = `${JSON.stringify({ before, after: result.state })}\n`;
      await appendFile(ledgerPath(sessionId), line, { flush: durable });
      return result;
    } finally {
      // Not kept: the session's turn runs elsewhere, and its next step needs the lock.
      await releaseNow(lease);
    }
  }

  async function queuedSince(
    sessionId: string,
    expected: TranscriptState,
    options: StorageCallOptions = {},
  ): Promise<QueuedSince> {
    const store = storage();
    let ledger: QueuedAppend[] | undefined;
    let current = expected;
    let queued = 0;
    for (;;) {
      const change = await store.compare(sessionId, current, options);
      if (change === undefined) {
        if (queued === 0) return { change: undefined, state: current, queued };
        // The queued lines are exactly the bytes the transcript grew by since `expected`.
        const { entries } = await store.readTail(sessionId, {
          ...options,
          maxBytes: current.size - expected.size,
        });
        return { change: undefined, state: current, queued, entries };
      }
      ledger ??= await readLedger(sessionId);
      const next =
        change === 'appended' ? ledger.find((q) => samePoint(q.before, current)) : undefined;
      if (next === undefined) return { change };
      current = next.after;
      queued += 1;
    }
  }

  /**
   * Forgets the session's queued appends: called once a new turn claim is granted, when every
   * message queued so far is history the new turn reads from the transcript. The ledger only
   * tells queued writes from others; the messages live in the transcript, so a crash before this
   * (the ledger left as it was) loses and doubles nothing: the next claim prunes it.
   */
  async function pruneLedger(sessionId: string): Promise<void> {
    try {
      await unlink(ledgerPath(sessionId));
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
  }

  let changes: ReturnType<typeof createFileSessionChanges> | undefined;
  function waitForChange(sessionId: string, options: WaitForChangeOptions): Promise<boolean> {
    changes ??= createFileSessionChanges({ sessionsDir: dirname(ledgerPath(sessionId)) });
    return changes.waitForChange(sessionId, options);
  }

  return { appendQueued, queuedSince, waitForChange, pruneLedger };
}

export type QueuedAppends = ReturnType<typeof createQueuedAppends>;
