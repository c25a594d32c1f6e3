import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type {
  CompactorPort,
  ModelEvent,
  ModelPort,
  ModelTarget,
  SessionFenceFactory,
  SessionStorage,
  ToolRunner,
  TranscriptEntry,
  TurnEvent,
  TurnHooks,
} from '@keel/spec';
import { createMockProvider, type MockProvider, type MockScriptEntry } from '@keel/testing';
import { createTransport } from '@keel/transport';
import {
  createOrchestrator,
  type Orchestrator,
  type OrchestratorOptions,
  type ProviderProfiles,
} from '../src/index';
import { createFakeClock, type FakeClock } from './fake-clock';

export interface HarnessOptions {
  /** Default: `anthropic` with profiles k1, k2, k3 and `backup` with profile b1. */
  providers?: ProviderProfiles[];
  models?: OrchestratorOptions['models'];
  script?: Array<MockScriptEntry>;
  /** The mock model's reply when nothing scripted matches; default the mock's own. */
  defaultReply?: () => string;
  tools?: ToolRunner;
  hooks?: TurnHooks | TurnHooks[];
  compactor?: (model: (target: ModelTarget) => ModelPort) => CompactorPort;
  overrides?: Partial<OrchestratorOptions>;
  /** Wraps the storage the orchestrator is given (the fences keep the plain one). */
  wrapStorage?: (storage: SessionStorage) => SessionStorage;
  /** The file store's lock: its staleness (the leases' ttl) and heartbeat; default the store's. */
  lock?: { staleMs?: number; heartbeatMs?: number };
  /** Runs before a model stream ends (after its last event), e.g. to land a foreign write mid-call. */
  beforeStreamEnds?: (target: ModelTarget) => Promise<void> | void;
  /**
   * The mock provider's strict mode: a request with an unpaired tool_use / tool_result gets the
   * provider's 400, as Anthropic and OpenAI answer it. Default on for every orchestrator test.
   */
  strict?: boolean;
}

export interface Harness {
  mock: MockProvider;
  storage: SessionStorage;
  fences: SessionFenceFactory;
  orchestrator: Orchestrator;
  clock: FakeClock;
  events: TurnEvent[];
  sessionsDir: string;
  /** Every provider request with the model and key it was sent with. */
  sent(): Array<{ model: string | undefined; apiKey: string | undefined }>;
  entries(sessionId: string): Promise<TranscriptEntry[]>;
  decisions(): string[];
  /** The requests the strict mock refused for an unpaired tool block (none, in a correct turn). */
  refused(): string[];
  close(): Promise<void>;
}

export const DEFAULT_PROVIDERS: ProviderProfiles[] = [
  { id: 'anthropic', profiles: [{ id: 'k1' }, { id: 'k2' }, { id: 'k3' }] },
  { id: 'backup', profiles: [{ id: 'b1' }] },
];

/** The key each profile sends: `key-<provider>-<profile>`. */
export function keyOf(target: Pick<ModelTarget, 'providerId' | 'profileId'>): string {
  return `key-${target.providerId}-${target.profileId}`;
}

/**
 * A real orchestrator over a real file store and fence in a temp folder, real transports (the
 * Anthropic SDK for `anthropic`, the OpenAI SDK for every other provider) against a loopback
 * mock provider, and a fake clock for every wait.
 */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-orchestrator-'));
  const mock = await createMockProvider({
    strict: options.strict ?? true,
    script: options.script ?? [],
    ...(options.defaultReply === undefined ? {} : { defaultReply: options.defaultReply }),
  });
  const storage = createTranscriptStore({
    sessionsDir,
    fsync: false,
    lock: { pollMs: 5, ...options.lock },
  });
  const fences: SessionFenceFactory = (sessionId) => createSessionFence({ storage, sessionId });
  const ports = new Map<string, ModelPort>();
  const connect = (target: ModelTarget): ModelPort => {
    const key = `${target.providerId}/${target.model}#${target.profileId}`;
    let port = ports.get(key);
    if (port === undefined) {
      const transport = (target.providerId === 'anthropic'
        ? createTransport({
            api: 'anthropic-messages',
            baseUrl: mock.anthropicBaseUrl,
            apiKey: keyOf(target),
            model: target.model,
            maxTokens: 256,
          })
        : createTransport({
            api: 'openai-chat',
            baseUrl: mock.openaiBaseUrl,
            apiKey: keyOf(target),
            model: target.model,
          })) as unknown as ModelPort;
      port = gate(transport, target, options.beforeStreamEnds);
      ports.set(key, port);
    }
    return port;
  };
  const clock = createFakeClock();
  const orchestrator = createOrchestrator({
    storage: options.wrapStorage?.(storage) ?? storage,
    fences,
    router: { connect },
    providers: options.providers ?? DEFAULT_PROVIDERS,
    models: options.models ?? { primary: 'anthropic/primary', fallbacks: ['backup/fallback'] },
    clock,
    random: () => 0.5,
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
    ...(options.compactor === undefined ? {} : { compactor: options.compactor(connect) }),
    ...options.overrides,
  });
  const events: TurnEvent[] = [];
  orchestrator.subscribe((event) => events.push(event));
  return {
    mock,
    storage,
    fences,
    orchestrator,
    clock,
    events,
    sessionsDir,
    sent: () =>
      mock.requests
        .filter((request) => request.api !== 'other' && request.api !== 'count-tokens')
        .map((request) => ({ model: request.model, apiKey: request.apiKey })),
    entries: async (sessionId) => (await storage.read(sessionId)).entries,
    decisions: () => events.flatMap((event) => (event.type === 'decision' ? [event.label] : [])),
    refused: () =>
      mock.requests.flatMap((request) =>
        request.strictRejection === undefined ? [] : [request.strictRejection],
      ),
    async close() {
      await orchestrator.shutdown({ graceMs: 0 });
      await mock.close();
      await rm(sessionsDir, { recursive: true, force: true });
    },
  };
}

function gate(
  port: ModelPort,
  target: ModelTarget,
  beforeStreamEnds: HarnessOptions['beforeStreamEnds'],
): ModelPort {
  return {
    ...port,
    specificationVersion: 'v1',
    provider: port.provider,
    api: port.api,
    capabilities: port.capabilities ?? { runsOwnTools: false, bindsSessions: false },
    async *stream(request, callOptions): AsyncIterable<ModelEvent> {
      for await (const event of port.stream(request, callOptions)) {
        if (event.type === 'finish') await beforeStreamEnds?.(target);
        yield event;
      }
    },
  };
}

/** The text of a session's user messages, in order. */
export function userTexts(entries: readonly TranscriptEntry[]): string[] {
  return entries.flatMap((entry) =>
    entry.type === 'message' && entry.role === 'user'
      ? entry.content.flatMap((block) => (block.type === 'text' ? [block.text] : []))
      : [],
  );
}

/**
 * Writes to `sessionId` what a crash leaves: a user message (`m1`, sent `ageMs` ago by the
 * harness's clock) that no turn answered, after another turn's start (so not a legacy transcript's).
 */
export async function seedUnanswered(h: Harness, sessionId: string, ageMs = 0): Promise<void> {
  await h.storage.append(sessionId, [
    {
      type: 'turn',
      id: 'e0',
      turnId: 't0',
      phase: 'start',
      messageId: 'x',
      timestamp: new Date(0).toISOString(),
    },
    {
      type: 'message',
      id: 'm1',
      messageId: 'm1',
      timestamp: new Date(h.clock.now() - ageMs).toISOString(),
      role: 'user',
      content: [{ type: 'text', text: 'unanswered' }],
    },
  ]);
}
