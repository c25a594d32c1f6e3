import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { ModelEvent, ModelPort, SessionStorage, TurnClaim, TurnEvent } from '@keel/spec';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { createTransport } from '@keel/transport';
import { afterEach, describe, expect, it } from 'vitest';
import { createOrchestrator, type Orchestrator } from '../src/index';

// With turn claims, a turn that ends while another turn of its session waits here hands its claim
// over (nothing released, nothing claimed anew); a turn that ends with none waiting lets the claim
// go before its caller gets the answer, so another gateway can take the session's next turn at once.

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

interface Traced {
  orchestrator: Orchestrator;
  events: TurnEvent[];
  /** `claim`, `release-start` and `release-done`, in the order they happened. */
  log: string[];
  storage: SessionStorage;
}

/**
 * A gateway over a file store whose turn claims are traced: each `claimTurn` call, and each
 * claim's release (its end logged one macrotask after the store let go, so nothing that waits
 * for it can be mistaken for something that did not). Model calls wait for `gate` before ending.
 */
async function tracedGateway(gate: () => Promise<void>): Promise<Traced> {
  const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-hand-over-'));
  cleanup.push(() => rm(sessionsDir, { recursive: true, force: true }));
  const mock: MockProvider = await createMockProvider({});
  cleanup.push(() => mock.close());
  const store = createTranscriptStore({ sessionsDir, fsync: false, lock: { pollMs: 5 } });
  const claims = store.turnClaims;
  if (claims === undefined) throw new Error('the file store has no turn claims');
  const log: string[] = [];
  const trace = (claim: TurnClaim): TurnClaim => {
    const release = async () => {
      log.push('release-start');
      await claim.release();
      await new Promise((resolve) => setImmediate(resolve));
      log.push('release-done');
    };
    return new Proxy(claim, {
      get(target, key) {
        if (key === 'release') return release;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  const storage: SessionStorage = {
    ...store,
    turnClaims: {
      ...claims,
      async claimTurn(...args) {
        log.push('claim');
        const result = await claims.claimTurn(...args);
        return result.claimed ? { claimed: true, claim: trace(result.claim) } : result;
      },
    },
  };
  const connect = (target: { model: string }): ModelPort => {
    const port = createTransport({
      api: 'anthropic-messages',
      baseUrl: mock.anthropicBaseUrl,
      apiKey: 'key-a',
      model: target.model,
      maxTokens: 256,
    }) as unknown as ModelPort;
    return {
      ...port,
      async *stream(request, options): AsyncIterable<ModelEvent> {
        for await (const event of port.stream(request, options)) {
          if (event.type === 'finish') await gate();
          yield event;
        }
      },
    };
  };
  const orchestrator = createOrchestrator({
    storage,
    fences: (sessionId) => createSessionFence({ storage: store, sessionId }),
    router: { connect },
    providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
    models: { primary: 'anthropic/primary' },
    gatewayId: 'a',
    turnClaims: { pollMs: 20 },
  });
  cleanup.push(() => orchestrator.shutdown({ graceMs: 0 }));
  const events: TurnEvent[] = [];
  orchestrator.subscribe((event) => events.push(event));
  return { orchestrator, events, log, storage };
}

/** Resolves once `predicate` holds for a recorded event (checked as each one arrives). */
function eventually(g: Traced, predicate: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (predicate()) return resolve();
    const off = g.orchestrator.subscribe(() => {
      if (!predicate()) return;
      off();
      resolve();
    });
  });
}

describe('session queue with turn claims: hand-over and release', () => {
  it('a lone turn lets its claim go before its caller has the answer', async () => {
    const g = await tracedGateway(async () => undefined);
    const outcome = await g.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(g.log).toEqual(['claim', 'release-start', 'release-done']);
    expect(await g.storage.turnClaims?.currentTurn('s1')).toBeUndefined();
  });

  it('a turn ending with the next queued here hands its claim over: claimed once, let go after the last', async () => {
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    let reach: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      reach = resolve;
    });
    const g = await tracedGateway(() => {
      reach();
      return opened;
    });
    const first = g.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await reached;
    let second: Promise<unknown> | undefined;
    try {
      // followup: written through the running turn, answered by the next turn here.
      second = g.orchestrator.runTurn({ sessionId: 's1', input: 'second' });
      await eventually(g, () => g.events.some((event) => event.type === 'message-queued'));
      // It is queued for its turn right after its write resolves: let that run.
      await new Promise((resolve) => setImmediate(resolve));
      expect(g.orchestrator.stats()).toEqual({ runningTurns: 1, queuedTurns: 1 });
    } finally {
      open();
    }
    const [one, two] = await Promise.all([first, second]);
    expect(one).toMatchObject({ kind: 'reply' });
    expect(two).toMatchObject({ kind: 'reply' });
    expect(g.events.filter((event) => event.type === 'turn-start')).toHaveLength(2);
    expect(g.log).toEqual(['claim', 'release-start', 'release-done']);
  });
});
