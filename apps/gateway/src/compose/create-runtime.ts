import { createCompactor } from '@keel/compaction';
import { createOrchestrator, type Orchestrator, parseModelRef } from '@keel/orchestrator';
import { createSessionFence } from '@keel/session-fence';
import type { SessionStorage, ToolRunner, TurnEvent, TurnHooks } from '@keel/spec';
import { createMockProvider, type MockProvider } from '@keel/testing';
import type { KeelConfig } from '../config/config-schema';
import { type CompactionUsageTap, createCompactionUsageTap } from '../keys/compaction-usage';
import { createBudgetMetric } from '../observe/budget-metric';
import { type CallLog, createCallLog } from '../observe/call-log';
import { type CallRegistry, createCallRegistry } from '../observe/call-registry';
import { type PriceBook, priceBookOf } from '../observe/cost-of';
import { createEventLog, type EventLog } from '../observe/event-log';
import { createGatewayMetrics, type GatewayMetrics } from '../observe/metrics';
import { nameErrorCause } from '../observe/name-error-cause';
import { createTurnTracer } from '../observe/turn-tracer';
import { setupPlugins } from '../plugins/setup-plugins';
import { combineToolRunners } from '../tools/combine-tool-runners';
import { createMcpTools } from '../tools/create-mcp-tools';
import type { McpServerNotice } from '../tools/mcp-server-connection';
import { createGatewayBudgets, type GatewayBudgets } from './create-budgets';
import { createModelRouter, profileIdsOf } from './create-model-router';
import { createStorage } from './create-storage';
import { createDemoToolRunner } from './demo-tools';
import { orchestratorModelSettings } from './model-settings';
import { loadPostgres } from './postgres-module';
import { prepareProviders } from './prepare-providers';
import { turnClaimsOption } from './turn-claims-option';

/** Everything a gateway runs on, composed from its configuration. */
export interface GatewayRuntime {
  readonly config: KeelConfig;
  readonly storage: SessionStorage;
  readonly orchestrator: Orchestrator;
  readonly events: EventLog;
  readonly metrics: GatewayMetrics;
  /** The compatible endpoints' running calls, with their wire and route (for the observers). */
  readonly calls: CallRegistry;
  /** The recent compatible calls (their events are in `events.calls`). */
  readonly callLog: CallLog;
  /** Prices per `providerId/model` (`models.settings[…].prices`). */
  readonly prices: PriceBook;
  /** The embedded demo model, when a provider uses it. */
  readonly demo: MockProvider | undefined;
  /** Whether other gateways share these sessions (PostgreSQL). */
  readonly shared: boolean;
  /** Provider budgets (`budgets`), shared over PostgreSQL. */
  readonly budgets: GatewayBudgets;
  /** What each compaction's model calls reported, with their session (charged to its key). */
  readonly compactionUsage: CompactionUsageTap;
  close(): Promise<void>;
}

export interface CreateRuntimeOptions {
  /** Extra observers (the gateway's logger). */
  onEvent?: (event: TurnEvent) => void;
  /** Where relative plugin paths resolve (the config file's folder); default the process's cwd. */
  baseDir?: string;
  /** A plugin failed at run time (it is isolated: logged and counted, the turn goes on). */
  onPluginFailure?: (plugin: string, where: string, error: unknown) => void;
  /** What the MCP servers do: started, their stderr, exits, restarts (for the log). */
  onToolServer?: (notice: McpServerNotice) => void;
  /** A provider budget's ledger failed to answer: the request goes unbudgeted (for the log). */
  onBudgetUnchecked?: (key: string, error: unknown) => void;
}

/**
 * Wires the packages together: the file store and fence, one transport per provider profile,
 * the compactor, provider health, the demo model and tools, and the orchestrator over all of them.
 */
export async function createGatewayRuntime(
  config: KeelConfig,
  options: CreateRuntimeOptions = {},
): Promise<GatewayRuntime> {
  // Providers and plugins first: one that cannot work stops start-up before anything is started.
  const sdks = await prepareProviders(config.providers);
  const plugins = await setupPlugins(config, options);
  const postgres = await loadPostgres(config);
  const stores = createStorage(config, postgres);
  const { storage, health } = stores;
  const usesDemo = config.providers.some((provider) => provider.api === 'demo');
  const demo = usesDemo ? await createMockProvider({ demo: true }) : undefined;
  const router = createModelRouter({
    providers: config.providers,
    demoBaseUrl: demo?.anthropicBaseUrl,
    sessionsDir: config.sessionsDir,
    storage,
    sdks,
  });
  const profiles = config.providers.map((provider) => ({
    id: provider.id,
    profiles: profileIdsOf(provider).map((id) => ({ id })),
  }));
  const summarizer = parseModelRef(config.compaction.model ?? config.models.primary);
  const summarizerProfile =
    profiles.find((p) => p.id === summarizer.providerId)?.profiles[0]?.id ?? 'default';
  const compactionUsage = createCompactionUsageTap(
    config.compaction.model ?? config.models.primary,
  );
  const compactor = createCompactor({
    registry: plugins.registry,
    providers: config.compaction.providers,
    model: await router.connect({ ...summarizer, profileId: summarizerProfile }),
    onUsage: compactionUsage.report,
    contextWindowTokens: config.compaction.contextWindowTokens,
    reserveTokens: config.compaction.reserveTokens,
    keepRecentTokens: config.compaction.keepRecentTokens,
  });

  const calls = createCallRegistry();
  const events = createEventLog({
    maxBytes: config.events.maxBytes,
    perSessionBytes: config.events.perSessionBytes,
    maxAgeMs: config.events.maxAgeMs,
    isCall: (id) => calls.get(id) !== undefined,
  });
  let orchestrator: Orchestrator | undefined;
  const prices = priceBookOf(config.models.settings);
  const callLog = createCallLog({ callOf: calls.get, prices });
  const metrics = createGatewayMetrics({
    prices,
    apiOf: calls.apiOf,
    queue: () => orchestrator?.stats() ?? { runningTurns: 0, queuedTurns: 0 },
  });
  metrics.registry.registerMetric(plugins.errors);
  const budgets = createGatewayBudgets(config, postgres, options.onBudgetUnchecked);
  metrics.registry.registerMetric(createBudgetMetric(budgets));
  compactor.subscribe((event) => {
    if (event.type !== 'compaction-fallback') return;
    const owner = plugins.contributions.providerOwners.get(event.producerId);
    if (owner !== undefined)
      plugins.report(owner, `compaction-provider:${event.producerId}`, new Error(event.reason));
  });
  health.subscribe(metrics.observeHealth);
  const trace = createTurnTracer(undefined, { callOf: calls.get });
  const observer: TurnHooks = {
    onEvent(event) {
      events.record(event);
      callLog.observe(event);
      metrics.observe(event);
      trace(event);
      options.onEvent?.(event);
    },
  };

  // MCP servers last: one that cannot start stops start-up naming it, and nothing is left running.
  const mcp = await createMcpTools({
    servers: config.tools.mcp,
    baseDir: options.baseDir ?? process.cwd(),
    timeoutMs: config.turn.toolTimeoutMs,
    ...(options.onToolServer === undefined ? {} : { onNotice: options.onToolServer }),
  });
  const builtin =
    config.tools.builtin.length === 0 ? undefined : createDemoToolRunner(config.tools.builtin);
  let tools: ToolRunner | undefined;
  try {
    tools = plugins.contributions.tools(combineToolRunners([builtin, mcp.runner]));
  } catch (error) {
    await mcp.close();
    throw error;
  }
  orchestrator = createOrchestrator({
    storage,
    fences: (sessionId) =>
      createSessionFence({ storage, sessionId, lockTimeoutMs: config.turn.lockTimeoutMs }),
    router,
    providers: profiles,
    models: {
      primary: config.models.primary,
      fallbacks: config.models.fallbacks,
      settings: orchestratorModelSettings(config),
    },
    compactor,
    health,
    ...(budgets.turnBudgets === undefined ? {} : { budgets: budgets.turnBudgets }),
    hooks: [observer, ...plugins.contributions.hooks],
    // The log line of a connection failure names its cause (ECONNREFUSED 127.0.0.1:4010).
    classify: nameErrorCause(plugins.contributions.classify),
    ...toolsOption(tools),
    toolTimeoutMs: config.turn.toolTimeoutMs,
    retry: config.retry,
    maxSteps: config.turn.maxSteps,
    maxModelSwitches: config.turn.maxModelSwitches,
    turnTimeoutMs: config.turn.timeoutMs,
    callTimeouts: {
      timeoutMs: config.turn.callTimeoutMs,
      firstTokenTimeoutMs: config.turn.firstTokenTimeoutMs,
      stallTimeoutMs: config.turn.stallTimeoutMs,
    },
    lockTimeoutMs: config.turn.lockTimeoutMs,
    maxReplyBytes: config.turn.maxReplyBytes,
    queueMode: config.queue.mode,
    // Over PostgreSQL, one running turn per session across the gateways.
    ...turnClaimsOption(config),
    ...(config.turn.system === undefined ? {} : { system: config.turn.system }),
  });

  return {
    config,
    storage,
    orchestrator,
    events,
    metrics,
    calls,
    callLog,
    prices,
    demo,
    shared: stores.shared,
    budgets,
    compactionUsage,
    async close() {
      await budgets.close();
      await Promise.allSettled([demo?.close(), stores.close(), mcp.close()]);
    },
  };
}

function toolsOption(tools: ToolRunner | undefined): { tools?: ToolRunner } {
  return tools === undefined ? {} : { tools };
}
