/**
 * `claimTurn` (src/claimed-turn.ts) called on its own: a real file store in a temp folder, its turn
 * claims wrapped by the test, a turn of session `s1`, and just the parts of the runtime that
 * `claimTurn` reads (the store, the entry factory, and a classifier that calls every error
 * `server_error`).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTranscriptStore } from '@keel/session-fence';
import type { SessionStorage, SessionTurnClaims, StorageCallOptions } from '@keel/spec';
import { type ClaimedTurn, claimTurn } from '../src/claimed-turn';
import { createEntryFactory } from '../src/entries';
import type { TurnInput } from '../src/run-turn';
import type { ClaimSettings, LiveTurn, TurnRuntime } from '../src/turn-runtime';

export interface ClaimSetup {
  /** The plain file store (its turn claims are another gateway's view of the session). */
  store: SessionStorage;
  /** The store's turn claims, unwrapped. */
  claims: SessionTurnClaims;
  runtime: TurnRuntime;
  /** The options of every transcript read `claimTurn` made. */
  reads: StorageCallOptions[];
  turn: LiveTurn;
  /** Claims the turn of `s1` as `claimTurn` does for `input` (default a new message). */
  claim(input?: TurnInput): Promise<ClaimedTurn>;
  close(): Promise<void>;
}

export async function createClaimSetup(options: {
  ttlMs: number;
  pollMs?: number;
  /** Wraps the store's turn claims as this gateway sees them. */
  wrap?: (claims: SessionTurnClaims) => SessionTurnClaims;
}): Promise<ClaimSetup> {
  const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-claimed-turn-'));
  const store = createTranscriptStore({ sessionsDir, fsync: false, lock: { pollMs: 5 } });
  const claims = store.turnClaims;
  if (claims === undefined) throw new Error('the file store has no turn claims');
  const reads: StorageCallOptions[] = [];
  const runtime = {
    storage: {
      ...store,
      read(sessionId: string, readOptions: StorageCallOptions = {}) {
        reads.push(readOptions);
        return store.read(sessionId, readOptions);
      },
    },
    entries: createEntryFactory(randomUUID, Date.now),
    classify: () => ({ kind: 'server_error' }),
  } as unknown as TurnRuntime;
  const turn = {
    sessionId: 's1',
    turnId: 'turn-here',
    messageId: 'message-here',
    clientMessageId: undefined,
    controller: new AbortController(),
    folded: new Set<string>(),
    markPrepared: () => undefined,
  } as unknown as LiveTurn;
  const settings: ClaimSettings = {
    turnClaims: options.wrap?.(claims) ?? claims,
    gatewayId: 'here',
    ttlMs: options.ttlMs,
    pollMs: options.pollMs ?? 20,
  };
  return {
    store,
    claims,
    runtime,
    reads,
    turn,
    claim: (input = { type: 'new', content: [{ type: 'text', text: 'hello' }] }) =>
      claimTurn(runtime, settings, turn, input),
    close: () => rm(sessionsDir, { recursive: true, force: true }),
  };
}
