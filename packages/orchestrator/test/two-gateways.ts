import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type {
  ModelEvent,
  ModelPort,
  ModelTarget,
  SessionStorage,
  SessionTurnClaims,
  TurnEvent,
} from '@keel/spec';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { createTransport } from '@keel/transport';
import { createOrchestrator, type Orchestrator } from '../src/index';

/** One of several orchestrators ("gateways") over one sessions folder, with turn claims. */
export interface Gateway {
  orchestrator: Orchestrator;
  /** Every event this gateway's orchestrator emitted. */
  events: TurnEvent[];
  /** Resolves once this gateway wrote a message as queued (for another gateway's turn). */
  queued: Promise<void>;
}

/**
 * A gateway `id`: its own file store over `sessionsDir`, a `gatewayId`, the loopback mock's
 * Anthropic wire (key `key-<id>`), every model call waiting for `gate` before it ends, a
 * waiter's poll of `options.pollMs` (default 20 ms), `options.beforeAcquire` awaited before
 * each turn's fence takes the session, and its turn claims wrapped by `options.wrapClaims`.
 */
export function createGateway(
  id: string,
  sessionsDir: string,
  mock: MockProvider,
  gate: () => Promise<void>,
  options: {
    pollMs?: number;
    beforeAcquire?: () => Promise<void>;
    /** Wraps the store's turn claims as this gateway sees them. */
    wrapClaims?: (claims: SessionTurnClaims) => SessionTurnClaims;
  } = {},
): Gateway {
  const store = createTranscriptStore({ sessionsDir, fsync: false, lock: { pollMs: 5 } });
  const own = store.turnClaims;
  if (own === undefined) throw new Error('the file store has no turn claims');
  const claims = options.wrapClaims?.(own) ?? own;
  let markQueued: () => void = () => undefined;
  const queued = new Promise<void>((resolve) => {
    markQueued = resolve;
  });
  const storage: SessionStorage = {
    ...store,
    turnClaims: {
      ...claims,
      async appendQueued(...args) {
        const result = await claims.appendQueued(...args);
        markQueued();
        return result;
      },
    },
  };
  const connect = (target: ModelTarget): ModelPort => {
    const port = createTransport({
      api: 'anthropic-messages',
      baseUrl: mock.anthropicBaseUrl,
      apiKey: `key-${id}`,
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
    fences(sessionId) {
      const fence = createSessionFence({ storage: store, sessionId });
      const { beforeAcquire } = options;
      if (beforeAcquire === undefined) return fence;
      const acquire = fence.acquire.bind(fence);
      return Object.assign(fence, {
        acquire: async (...args: Parameters<typeof acquire>) => {
          await beforeAcquire();
          return acquire(...args);
        },
      });
    },
    router: { connect },
    providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
    models: { primary: 'anthropic/primary' },
    gatewayId: id,
    turnClaims: { pollMs: options.pollMs ?? 20 },
  });
  const events: TurnEvent[] = [];
  orchestrator.subscribe((event) => events.push(event));
  return { orchestrator, events, queued };
}

/** Holds model calls at their end until `open`; `reached` once one got there. */
export function createGate() {
  let open: () => void = () => undefined;
  let reach: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  return {
    reached,
    open: () => open(),
    wait() {
      reach();
      return opened;
    },
  };
}

/**
 * Gateways `a` and `b` over a new sessions folder and a new mock provider, `a`'s model calls ending
 * through `gateA` (b's at once); `cleanup` gets the steps that shut them down and remove the folder.
 */
export async function startTwoGateways(
  cleanup: Array<() => Promise<void>>,
  gateA: () => Promise<void>,
): Promise<{ sessionsDir: string; mock: MockProvider; a: Gateway; b: Gateway }> {
  const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-gateways-'));
  cleanup.push(() => rm(sessionsDir, { recursive: true, force: true }));
  const mock = await createMockProvider({});
  cleanup.push(() => mock.close());
  const a = createGateway('a', sessionsDir, mock, gateA);
  const b = createGateway('b', sessionsDir, mock, async () => undefined);
  for (const g of [a, b]) cleanup.push(() => g.orchestrator.shutdown({ graceMs: 0 }));
  return { sessionsDir, mock, a, b };
}
