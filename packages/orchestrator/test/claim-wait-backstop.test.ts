import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { ModelPort, SessionStorage, SessionTurnClaims, TurnClaim } from '@keel/spec';
import { createMockProvider } from '@keel/testing';
import { createTransport } from '@keel/transport';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOrchestrator } from '../src/index';

// A message queued while another gateway holds the session's turn waits for a change the store
// announces (`waitForChange`), with a backstop in case none comes: that backstop starts at
// `pollMs` and doubles each time it runs out with nothing announced, up to 8 × `pollMs`; an
// announced change leaves it as it is. Here the store's `waitForChange` answers at once (as if
// its wait had run out, or a change had been announced) and records the wait it was asked for;
// at the waiter's `waits`-th look the other gateway lets the turn go and the waiter answers.
// A store that announces nothing (no `waitForChange`) is looked at every `pollMs`, never less often.

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  vi.restoreAllMocks();
});

const POLL_MS = 20;

/**
 * The `timeoutMs` of each `waitForChange` the waiter asked for (one before each of its looks),
 * each answered `announced` at once; with `announced` `undefined`, the store has no
 * `waitForChange`. The other gateway lets the turn go at the waiter's `waits`-th look.
 */
async function backstops(announced: boolean | undefined, waits: number): Promise<number[]> {
  const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-backstop-'));
  cleanup.push(() => rm(sessionsDir, { recursive: true, force: true }));
  const mock = await createMockProvider({});
  cleanup.push(() => mock.close());
  // Another gateway holds the session's turn (a long ttl: only its release frees it).
  const other = createTranscriptStore({ sessionsDir, fsync: false }).turnClaims;
  const taken = await other?.claimTurn('s1', { owner: 'other', turnId: 't0', ttlMs: 600_000 });
  if (taken?.claimed !== true) throw new Error('the other gateway did not get the claim');
  const held: TurnClaim = taken.claim;

  const store = createTranscriptStore({ sessionsDir, fsync: false, lock: { pollMs: 5 } });
  const claims = store.turnClaims as SessionTurnClaims;
  const asked: number[] = [];
  let looks = 0;
  const { waitForChange: _, ...announcing } = claims;
  const turnClaims: SessionTurnClaims = {
    ...announcing,
    // The other gateway lets the turn go as the waiter looks at the claim for the `waits`-th time.
    async currentTurn(...args) {
      looks += 1;
      if (looks === waits) await held.release();
      return claims.currentTurn(...args);
    },
  };
  if (announced !== undefined) {
    turnClaims.waitForChange = async (_sessionId, options) => {
      asked.push(options.timeoutMs);
      return announced;
    };
  }
  const storage: SessionStorage = { ...store, turnClaims };
  const orchestrator = createOrchestrator({
    storage,
    fences: (sessionId) => createSessionFence({ storage: store, sessionId }),
    router: {
      connect: (target) =>
        createTransport({
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          apiKey: 'key-b',
          model: target.model,
          maxTokens: 256,
        }) as unknown as ModelPort,
    },
    providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
    models: { primary: 'anthropic/primary' },
    gatewayId: 'b',
    turnClaims: { pollMs: POLL_MS },
  });
  cleanup.push(() => orchestrator.shutdown({ graceMs: 0 }));
  const answer = await orchestrator.runTurn({
    sessionId: 's1',
    input: 'anyone there?',
    clientMessageId: 'c1',
  });
  // Answered here once the other gateway let the turn go: one model request.
  expect(answer).toMatchObject({ kind: 'reply', clientMessageId: 'c1' });
  expect(mock.requests).toHaveLength(1);
  return asked;
}

describe('the backstop of a message waiting for another gateway’s turn', () => {
  it('doubles each time nothing was announced, up to 8 × pollMs', async () => {
    expect(await backstops(false, 7)).toEqual([20, 40, 80, 160, 160, 160, 160]);
  });

  it('stays at pollMs while changes are announced', async () => {
    expect(await backstops(true, 4)).toEqual([20, 20, 20, 20]);
  });

  it('is pollMs, never longer, when the store announces no changes', async () => {
    // The waiter's pauses are timers of pollMs: no timer of 2, 4 or 8 × pollMs is ever set.
    const delays: unknown[] = [];
    const setTimer = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
      ...args: Parameters<typeof setTimer>
    ) => {
      delays.push(args[1]);
      return setTimer(...args);
    }) as typeof setTimer);
    await backstops(undefined, 5);
    const pauses = delays.filter((delay) => [20, 40, 80, 160].includes(Number(delay)));
    // One pause before each of the 5 looks (the last one stopped as the look found the turn free).
    expect(pauses.length).toBeGreaterThanOrEqual(4);
    expect(new Set(pauses)).toEqual(new Set([20]));
  });
});
