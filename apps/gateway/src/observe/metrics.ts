import type { AttemptRecord, CompactionTrigger, HealthEvent, TurnEvent } from '@keel/spec';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ApiName } from './call-registry';
import { attemptCost, type PriceBook } from './cost-of';

/** The gateway's Prometheus metrics, in a registry of its own (one per gateway instance). */
export interface GatewayMetrics {
  readonly registry: Registry;
  observe(event: TurnEvent): void;
  observeHealth(event: HealthEvent): void;
  /** A compaction that ended outside a turn (`manual`: `POST .../compact`). */
  countCompaction(trigger: CompactionTrigger, outcome: string): void;
}

const BREAKER_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;
/** Distinct providers and models a gateway's series may name; further ones count as `other`. */
const MAX_LABEL_VALUES = 100;
/** What a provider or model label may hold: printable ASCII, no spaces, up to 128 characters. */
const PLAIN_LABEL = /^[\x21-\x7e]{1,128}$/;

/**
 * Bounds the values of one label: a value that is not plain (escapes, bidi controls, spaces,
 * very long) and any value past the first `MAX_LABEL_VALUES` becomes `other`, so no string from
 * a client or a provider can mint series without end or write raw control bytes into `/metrics`.
 */
export function createLabelBound(limit = MAX_LABEL_VALUES): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (!PLAIN_LABEL.test(value)) return 'other';
    if (seen.has(value)) return value;
    if (seen.size >= limit) return 'other';
    seen.add(value);
    return value;
  };
}

export function createGatewayMetrics(options: {
  queue: () => { runningTurns: number; queuedTurns: number };
  /** Prices per `providerId/model`: `keel_cost_usd_total` counts only priced models. */
  prices?: PriceBook;
  /** The API an event's session id belongs to (a running compatible call's wire); default `sessions`. */
  apiOf?: (sessionId: string) => ApiName;
}): GatewayMetrics {
  const apiOf = options.apiOf ?? (() => 'sessions');
  const prices: PriceBook = options.prices ?? new Map();
  const providerLabel = createLabelBound();
  const modelLabel = createLabelBound();
  const decisionLabel = createLabelBound();
  const targetLabels = (target: { providerId: string; model: string }) => ({
    provider: providerLabel(target.providerId),
    model: modelLabel(target.model),
  });
  const registry = new Registry();
  const turns = new Counter({
    name: 'keel_turns_total',
    help: 'Turns ended, by outcome and API (sessions, openai, anthropic).',
    labelNames: ['outcome', 'api'],
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'keel_attempts_total',
    help: 'Model call attempts, by provider, model, result (ok, an error kind, or skipped) and API.',
    labelNames: ['provider', 'model', 'result', 'api'],
    registers: [registry],
  });
  const decisions = new Counter({
    name: 'keel_decisions_total',
    help: 'Decisions taken after an attempt, by label.',
    labelNames: ['label'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'keel_provider_latency_seconds',
    help: 'Duration of model call attempts that sent a request.',
    labelNames: ['provider', 'model'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const breaker = new Gauge({
    name: 'keel_breaker_state',
    help: 'Breaker state per provider and model: 0 closed, 1 half-open, 2 open.',
    labelNames: ['provider', 'model'],
    registers: [registry],
  });
  const compactions = new Counter({
    name: 'keel_compactions_total',
    help: 'Compactions that ended, by outcome and trigger (threshold, overflow, manual).',
    labelNames: ['outcome', 'trigger'],
    registers: [registry],
  });
  const unchecked = new Counter({
    name: 'keel_budget_unchecked_total',
    help: "Requests sent without a budget reservation: the budget's ledger failed to answer (a database down).",
    labelNames: ['provider', 'model'],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'keel_tokens_total',
    help: 'Tokens the providers reported, by provider, model and type (input counts cached input too; cache_read and cache_write are parts of it).',
    labelNames: ['provider', 'model', 'type'],
    registers: [registry],
  });
  const cost = new Counter({
    name: 'keel_cost_usd_total',
    help: 'What the reported tokens cost in USD, at the prices of models.settings (priced models only).',
    labelNames: ['provider', 'model'],
    registers: [registry],
  });
  const countUsage = (attempt: AttemptRecord, labels: { provider: string; model: string }) => {
    const { usage } = attempt;
    if (usage === undefined) return;
    // Labels from a literal, not a spread (CONTRIBUTING.md, "Objects on the hot path").
    const typed = (type: string) => ({ provider: labels.provider, model: labels.model, type });
    tokens.inc(typed('input'), usage.inputTokens);
    tokens.inc(typed('output'), usage.outputTokens);
    if (usage.cacheReadTokens !== undefined) tokens.inc(typed('cache_read'), usage.cacheReadTokens);
    if (usage.cacheWriteTokens !== undefined)
      tokens.inc(typed('cache_write'), usage.cacheWriteTokens);
    const usd = attemptCost(attempt, prices);
    if (usd !== undefined) cost.inc(labels, usd);
  };
  new Gauge({
    name: 'keel_queue_depth',
    help: 'Turns waiting behind a running turn of their session.',
    registers: [registry],
    collect() {
      this.set(options.queue().queuedTurns);
    },
  });
  new Gauge({
    name: 'keel_running_turns',
    help: 'Turns running now.',
    registers: [registry],
    collect() {
      this.set(options.queue().runningTurns);
    },
  });

  const observeHealth = (event: HealthEvent) => {
    if (event.type === 'breaker-change')
      breaker.set(
        targetLabels({ providerId: event.providerId, model: event.model }),
        BREAKER_VALUE[event.to],
      );
  };

  const countCompaction = (trigger: CompactionTrigger, outcome: string) => {
    compactions.inc({ outcome, trigger });
  };

  return {
    registry,
    observeHealth,
    countCompaction,
    observe(event) {
      switch (event.type) {
        case 'turn-end': {
          const api = apiOf(event.sessionId);
          turns.inc({ outcome: event.outcome.kind, api });
          for (const attempt of event.outcome.attempts) {
            const labels = targetLabels(attempt.target);
            attempts.inc({
              provider: labels.provider,
              model: labels.model,
              result:
                attempt.outcome === 'error' ? (attempt.errorKind ?? 'unknown') : attempt.outcome,
              api,
            });
            if (attempt.requestSent)
              latency.observe(labels, (attempt.endedAt - attempt.startedAt) / 1000);
            if (attempt.budget === 'unchecked') unchecked.inc(labels);
            countUsage(attempt, labels);
          }
          return;
        }
        case 'decision':
          decisions.inc({ label: decisionLabel(event.label) });
          return;
        case 'compaction':
          if (event.event.type === 'compaction-end')
            countCompaction(event.event.trigger, event.event.outcome);
          return;
        default:
          return;
      }
    },
  };
}
