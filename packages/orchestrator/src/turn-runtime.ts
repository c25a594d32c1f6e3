import type {
  Clock,
  CompactorPort,
  ModelRequest,
  ModelRouter,
  ProviderHealth,
  SessionFence,
  SessionFenceFactory,
  SessionStorage,
  SessionTurnClaims,
  ToolRunner,
  TranscriptEntry,
  TurnHooks,
} from '@keel/spec';
import type { TurnBudgets } from './budget-gate';
import type { EntryFactory } from './entries';
import type { ProviderProfiles } from './model-chain';
import type { CallTimeouts, Classification, ModelSettings } from './orchestrator-options';
import type { TranscriptCache } from './transcript-cache';
import type { TranscriptFacts } from './transcript-facts';
import type { TurnCopy } from './turn-copy';
import type { TurnEmitter } from './turn-emitter';

/** The orchestrator's options with every default applied. */
export interface TurnSettings {
  maxRetries: number;
  maxWaitMs: number;
  maxWaits: number;
  baseDelayMs: number;
  maxDelayMs: number;
  rateLimitCooldownMs: number;
  maxSteps: number;
  toolTimeoutMs: number;
  maxModelSwitches: number;
  turnTimeoutMs: number;
  lockTimeoutMs: number | undefined;
  maxReplyBytes: number;
  callTimeouts: Required<CallTimeouts>;
  queueMode: 'followup' | 'steer';
  system: string | undefined;
  maxTokens: number | undefined;
  primary: string;
  fallbacks: readonly string[];
  /** The models a session may select: the primary, the fallbacks and every `models.settings` key. */
  selectable: ReadonlySet<string>;
  /** `models.settings`, by `providerId/model`, checked. */
  modelSettings: ReadonlyMap<string, ModelSettings>;
  providers: readonly ProviderProfiles[];
  copy: TurnCopy;
  /** The most provider requests one turn can make (see `requestCeiling`). */
  requestCeiling: number;
}

/** What every turn of one orchestrator shares. */
export interface TurnRuntime {
  storage: SessionStorage;
  fences: SessionFenceFactory;
  router: ModelRouter;
  compactor: CompactorPort | undefined;
  tools: ToolRunner | undefined;
  health: ProviderHealth;
  /** Provider budgets, when the orchestrator has any (`budget-gate`). */
  budgets?: TurnBudgets | undefined;
  clock: Clock;
  hooks: readonly TurnHooks[];
  emitter: TurnEmitter;
  entries: EntryFactory;
  classify(error: unknown, options: { signal?: AbortSignal }): Classification;
  random(): number;
  createId(): string;
  settings: TurnSettings;
  /** What the last turn of each session left, to skip the read when nothing changed since. */
  transcripts: TranscriptCache;
  /** Set once shutdown's grace period is over: every turn that starts from then on stops at once. */
  stopping: boolean;
  /** Turn claims across gateways: set with a `gatewayId` over a storage that has them. */
  claims: ClaimSettings | undefined;
}

export interface ClaimSettings {
  turnClaims: SessionTurnClaims;
  gatewayId: string;
  ttlMs: number;
  pollMs: number;
}

/** A turn while it runs: what the session queue and `selectModel` reach into. */
export interface LiveTurn {
  readonly sessionId: string;
  readonly turnId: string;
  messageId: string;
  clientMessageId: string | undefined;
  fence: SessionFence;
  /**
   * The transcript as this turn knows it, its own and queued writes included: from position
   * `entriesFrom` on — the whole, or its live part when the cached transcript let go of what a
   * compaction summarized (`liveStart`; `facts` still tell every message and answer).
   */
  entries: TranscriptEntry[];
  /** The position in the transcript of `entries[0]`. */
  entriesFrom: number;
  /** The facts of the whole transcript as the turn read it, once it has (`prepared`). */
  facts: TranscriptFacts | undefined;
  /** Messages that arrived while the turn ran, not yet folded in (`steer`) or left for later. */
  arrived: string[];
  /** Messages folded into this turn's model calls (`steer`). */
  folded: Set<string>;
  /** The model the user selected while the turn ran (`selectModel`), when newer than the turn's. */
  requestedModel: string | undefined;
  readonly controller: AbortController;
  /**
   * A stateless call's conversation, as its client sent it: every model call sends it (with the
   * client's tools) instead of building one from `entries`.
   */
  request?: Omit<ModelRequest, 'model'>;
  /** Why the turn was stopped from outside, when it was. */
  stopReason: 'shutdown' | 'deadline' | undefined;
  /**
   * Set as its outcome is final (before `turn-end`): a message arriving from then on waits for the
   * next turn, never written through this one's fence (which ends once the answer is out).
   */
  finished: boolean;
  /**
   * Resolves once `entries` holds the whole transcript (or the turn ended without it): only then
   * can a repeated `clientMessageId` be told apart from a new message.
   */
  readonly prepared: Promise<void>;
  /** Marks the turn prepared (idempotent). */
  markPrepared(): void;
}

/** Stops a turn for shutdown: it ends `aborted` with the restart notice. */
export function stopForShutdown(turn: LiveTurn): void {
  turn.stopReason ??= 'shutdown';
  turn.controller.abort(new Error('shutting down'));
}
