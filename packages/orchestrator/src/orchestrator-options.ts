import type {
  Clock,
  CompactorPort,
  ErrorKind,
  ModelRouter,
  ProviderHealth,
  SessionFenceFactory,
  SessionStorage,
  ToolRunner,
  TurnHooks,
} from '@keel/spec';
import type { BackoffOptions } from './backoff';
import type { TurnBudgets } from './budget-gate';
import type { ProviderProfiles } from './model-chain';
import type { TurnCopy } from './turn-copy';

/** The model call's own time limits (passed to the model port). */
export interface CallTimeouts {
  /** Whole-attempt timeout; default 300 000 ms. */
  timeoutMs?: number;
  /** Until the first model output; default 30 000 ms. */
  firstTokenTimeoutMs?: number;
  /** Longest silence between chunks; default 30 000 ms. */
  stallTimeoutMs?: number;
}

/** What one model can take and how long it may stay silent; every field optional. */
export interface ModelSettings {
  /**
   * Tokens the model accepts (request and answer). A request that overflows a model falls over to
   * a candidate with a larger declared window when compaction cannot bring it under.
   */
  contextWindowTokens?: number;
  /** `maxTokens` of this model's calls; default the orchestrator's `maxTokens`. */
  maxOutputTokens?: number;
  /** Until this model's first output; default `callTimeouts.firstTokenTimeoutMs`. */
  firstTokenTimeoutMs?: number;
  /** Longest silence between this model's chunks; default `callTimeouts.stallTimeoutMs`. */
  stallTimeoutMs?: number;
}

export interface RetryOptions extends BackoffOptions {
  /** `retry_same` per model and profile for transient kinds; default 1, 0 allowed. */
  maxRetries?: number;
  /** The longest a turn waits for a cooldown or a `retry-after`; default 10 000 ms. */
  maxWaitMs?: number;
  /** Waits for cooling candidates per turn; default 2. */
  maxWaits?: number;
}

export interface OrchestratorOptions {
  /** Where transcripts live (the spec's fenced port). */
  storage: SessionStorage;
  /** Makes one turn's fence over `storage` (e.g. `createSessionFence` of `@keel/session-fence`). */
  fences: SessionFenceFactory;
  /** Connects to a model through one provider profile. */
  router: ModelRouter;
  /** Every provider the model chain may name, each with its auth profiles in order. */
  providers: readonly ProviderProfiles[];
  /**
   * `providerId/model` references: the default model and the fallbacks tried in order, and
   * settings per model (`settings["providerId/model"]`), which win over the turn-wide ones.
   */
  models: {
    primary: string;
    fallbacks?: readonly string[];
    settings?: Readonly<Record<string, ModelSettings>>;
  };
  compactor?: CompactorPort;
  tools?: ToolRunner;
  /** Provider health shared by every session; default a new in-process `createProviderHealth`. */
  health?: ProviderHealth;
  /**
   * Provider budgets (`rpm`, `tpm`, `tpd` per target): a target over budget is held back like a
   * cooling profile; default none.
   */
  budgets?: TurnBudgets;
  clock?: Clock;
  /** Hooks, run in order (plugins contribute one each). */
  hooks?: TurnHooks | readonly TurnHooks[];
  retry?: RetryOptions;
  /** Model calls per turn (tool loop steps); default 16. */
  maxSteps?: number;
  /**
   * How long one tool call may run (its `beforeToolCall` hooks included); past it the call's
   * signal aborts and the model gets an error result naming the bound. Default 60 000 ms.
   */
  toolTimeoutMs?: number;
  /** Live model switches honoured per turn; default 2. */
  maxModelSwitches?: number;
  /** A turn's total deadline; default 600 000 ms. */
  turnTimeoutMs?: number;
  callTimeouts?: CallTimeouts;
  /** A message arriving while its session's turn runs: answered next (`followup`) or folded in (`steer`). */
  queueMode?: 'followup' | 'steer';
  /** The system prompt of every model call. */
  system?: string;
  /** `maxTokens` of every model call; default the model port's. */
  maxTokens?: number;
  /** Lease wait at turn start; past it the turn ends `error` (`coordination`) without a request. */
  lockTimeoutMs?: number;
  /**
   * Text one model call may produce (UTF-8 bytes of text and refusal); past it the call stops,
   * the turn ends `error` with `copy.replyTooLarge` (no retry, no fallback) and nothing of the
   * partial reply is stored. Default 4 MiB.
   */
  maxReplyBytes?: number;
  copy?: Partial<TurnCopy>;
  /**
   * Classifies a thrown error (default `classifyError` of `@keel/error-classification`); pass a
   * `createClassifier({ rules }).classify` to add application rules.
   */
  classify?: (error: unknown, options: { signal?: AbortSignal }) => Classification;
  /** Random numbers in [0, 1) for backoff jitter; default `Math.random` (inject for seeded tests). */
  random?: () => number;
  /** Ids of turns, messages and entries; default `crypto.randomUUID`. */
  createId?: () => string;
  /**
   * This gateway's id among the gateways that share the sessions (stable for the process,
   * unique). With a storage that has `turnClaims`, each turn claims its session first: while
   * another gateway runs the session's turn, a message is written there as queued and this
   * orchestrator waits for the turn end that answers it. Without it, turns are not claimed.
   */
  gatewayId?: string;
  turnClaims?: TurnClaimOptions;
}

export interface TurnClaimOptions {
  /** A claim's life without a heartbeat (heartbeats every third of it); default 30 000 ms. */
  ttlMs?: number;
  /**
   * How soon a message queued at another gateway's turn looks for its answer when the store
   * announced no change of the session; default 200 ms. With a store that announces changes
   * (`waitForChange`), this backstop doubles each time it runs out, up to 8 × `pollMs`.
   */
  pollMs?: number;
}

/** The part of an error classification the orchestrator reads. */
export interface Classification {
  kind: ErrorKind;
  status?: number;
  /** Within 0–60 s: a turn may wait for it. */
  retryAfterMs?: number;
  /** A longer `retry-after`, honoured by cooldowns and breakers but never waited for. */
  cooldownMs?: number;
  message?: string;
}
