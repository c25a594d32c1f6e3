import type { CompactionEvent } from './compaction';
import type { ContentBlock, Usage } from './content';
import type { ErrorKind } from './error-kind';
import type { HealthEvent, ModelTarget } from './health';
import type { FinishReason, ModelEvent, ModelPort, ModelRequest, ToolDefinition } from './model';
import type { TurnOutcomeKind } from './transcript';

/** Connects the orchestrator to models: one port per provider profile (keys are fixed per client). */
export interface ModelRouter {
  connect(target: ModelTarget): ModelPort | Promise<ModelPort>;
}

/** A tool call the model made, to run. */
export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolCallContext {
  sessionId: string;
  turnId: string;
  signal: AbortSignal;
}

/** A tool's answer. A thrown error becomes an error result, never a failed turn. */
export interface ToolCallResult {
  content: string;
  isError?: boolean;
}

/** Runs the tools offered to the model. */
export interface ToolRunner {
  /** The tools offered to the model on every call. */
  readonly definitions: readonly ToolDefinition[];
  run(call: ToolCall, context: ToolCallContext): Promise<ToolCallResult>;
}

/**
 * The label of a decision the orchestrator took after an attempt. Each is what happened, never a
 * near neighbour: a fallback to another model is `fallback_model`, never `rotate_profile`.
 */
export type DecisionLabel =
  /** The same model and profile again, after a backoff. */
  | 'retry_same'
  /** The same model with the provider's next auth profile. */
  | 'rotate_profile'
  /** The next model of the chain. */
  | 'fallback_model'
  /** Compact the transcript, then retry once. */
  | 'compact_and_retry'
  /** Wait for the shortest cooldown (within `retry.maxWaitMs`), then try again. */
  | 'wait'
  /** The user switched the session's model; the next attempt uses it. */
  | 'switch_model'
  /** The session was taken over: end with resend guidance, try nothing else. */
  | 'resend'
  /** End the turn. */
  | 'final';

/** One model call of a turn (or a candidate skipped without a request), as recorded on its outcome. */
export interface AttemptRecord {
  /** 1-based, in order. */
  attempt: number;
  target: ModelTarget;
  /** Clock ms. */
  startedAt: number;
  endedAt: number;
  /** From `startedAt` to the first model output, when there was any. */
  firstTokenMs?: number;
  /** `false` when the target was skipped (breaker open, profile cooling): no request was sent. */
  requestSent: boolean;
  /** Whether the half-open breaker let this attempt through as its probe. */
  probe: boolean;
  outcome: 'ok' | 'error' | 'skipped';
  errorKind?: ErrorKind;
  status?: number;
  retryAfterMs?: number;
  /**
   * What was decided after it: the decision that explains the next attempt's target (skipped
   * attempts included), or `final` for an attempt that ended the turn without a reply; absent for
   * the attempt that answered.
   */
  decision?: DecisionLabel;
  /** What the provider reported this attempt consumed (a failed attempt may have none). */
  usage?: Usage;
  /**
   * `unchecked`: the target has a budget, but its ledger failed to answer (a database down or
   * its pool exhausted), so the request left without a reservation. Present only then.
   */
  budget?: 'unchecked';
}

/** How one turn ended. Exactly one per turn, always. */
export interface TurnOutcome {
  kind: TurnOutcomeKind;
  /** The reply, or safe copy that tells the user what to do; never raw provider text. */
  text: string;
  /** The user message this turn answered. */
  messageId: string;
  clientMessageId?: string;
  turnId: string;
  /** `providerId/model` that answered, or was last tried. */
  model?: string;
  provider?: string;
  /** A takeover (`resend`): the text the model had produced, kept rather than lost. */
  staleReply?: string;
  /** `error`: the kind that ended the turn. */
  errorKind?: ErrorKind;
  /** `error` because every candidate is cooling: the shortest wait (HTTP `Retry-After`). */
  retryAfterMs?: number;
  /** Messages that arrived during the turn and were folded into it (`steer`). */
  steeredMessageIds?: string[];
  /** Tokens of every attempt of the turn added up, when any provider reported usage. */
  usage?: Usage;
  attempts: AttemptRecord[];
}

/**
 * How one stateless call ended (`orchestrator.runCall`: a client sends the whole conversation,
 * as the OpenAI- and Anthropic-compatible endpoints do). Nothing is stored; the attempts, usage
 * and decisions are a turn's.
 */
export interface CallOutcome {
  kind: TurnOutcomeKind;
  /** The reply's text, or safe copy for the other outcomes; never raw provider text. */
  text: string;
  /** `reply`: the assistant's content as the model produced it (text and `tool_use` blocks). */
  content: ContentBlock[];
  /** `reply`: why the model stopped. */
  finish?: FinishReason;
  /** The ephemeral id of the call (its events' `sessionId`). */
  callId: string;
  turnId: string;
  /** `providerId/model` that answered (or was last sent a request). */
  model?: string;
  provider?: string;
  errorKind?: ErrorKind;
  /** `error` because every candidate is cooling: the shortest wait (HTTP `Retry-After`). */
  retryAfterMs?: number;
  usage?: Usage;
  attempts: AttemptRecord[];
}

/** What every turn event carries. */
export interface TurnEventBase {
  sessionId: string;
  turnId: string;
  /** Clock ms. */
  at: number;
}

/** Everything a turn reports, as one union on `type`. Exactly one `turn-end` per turn. */
export type TurnEvent =
  | (TurnEventBase & { type: 'turn-start'; messageId: string; clientMessageId?: string })
  | (TurnEventBase & {
      type: 'attempt-start';
      attempt: number;
      target: ModelTarget;
      probe: boolean;
    })
  /** Model output of the running attempt: text, tool calls and results, refusals, usage. */
  | (TurnEventBase & {
      type: 'model-event';
      attempt: number;
      event: Exclude<ModelEvent, { type: 'binding-invalidated' | 'session-bound' }>;
    })
  | (TurnEventBase & {
      type: 'attempt-error';
      attempt: number;
      target: ModelTarget;
      kind: ErrorKind;
      status?: number;
      retryAfterMs?: number;
      /** Log-safe (sanitized, capped); never for end users. */
      message?: string;
    })
  /**
   * Text already streamed by an attempt is void: a retry or fallback follows. Streaming clients
   * drop the partial text; it is never continued or stored.
   */
  | (TurnEventBase & { type: 'discard'; attempt: number; reason: ErrorKind | 'switch_model' })
  | (TurnEventBase & {
      type: 'decision';
      label: DecisionLabel;
      from?: ModelTarget;
      to?: ModelTarget;
      reason:
        | ErrorKind
        | 'switch_model'
        | 'step_cap'
        | 'switch_limit'
        | 'deadline'
        | 'request_ceiling'
        | 'reply';
      /** The wait before the next attempt, when there is one. */
      delayMs?: number;
    })
  | (TurnEventBase & { type: 'health'; event: HealthEvent })
  | (TurnEventBase & { type: 'compaction'; event: CompactionEvent })
  | (TurnEventBase & {
      type: 'binding';
      event: Extract<ModelEvent, { type: 'binding-invalidated' | 'session-bound' }>;
    })
  /** A tool the orchestrator ran (not a model runtime's own). */
  | (TurnEventBase & {
      type: 'tool-run';
      toolUseId: string;
      name: string;
      isError: boolean;
      durationMs: number;
      /** The result as the model gets it (observers that keep or send it cap it themselves). */
      content?: string;
    })
  /** A message arrived while this turn ran; it was written through the turn's fence. */
  | (TurnEventBase & { type: 'message-queued'; messageId: string; mode: 'followup' | 'steer' })
  | (TurnEventBase & { type: 'turn-end'; outcome: TurnOutcome });

export interface BeforeModelCallContext {
  sessionId: string;
  turnId: string;
  attempt: number;
  target: ModelTarget;
  /** The request about to be sent, already repaired (every tool_use paired). */
  request: ModelRequest;
  signal: AbortSignal;
}

export interface BeforeToolCallContext extends ToolCallContext {
  call: ToolCall;
}

/**
 * Hooks into one turn. Every member is optional and takes one context object. Hooks run in the
 * order the plugins that contribute them were loaded.
 */
export interface TurnHooks {
  /**
   * Runs before each model call, after the request is built from the transcript and repaired,
   * while the session is still held (just before it is let go for the call). May return a
   * changed request (what it returns is sent as it is: keep tool_use / tool_result pairs intact)
   * or `undefined` to leave it. May throw: the
   * turn then ends with `error` (kind `unknown`), as for any failure outside the model call.
   */
  beforeModelCall?(
    context: BeforeModelCallContext,
  ): ModelRequest | undefined | Promise<ModelRequest | undefined>;
  /**
   * Runs before the orchestrator runs a tool call. May return a result to use instead of running
   * the tool. A throw becomes that call's error result; the turn goes on.
   */
  beforeToolCall?(
    context: BeforeToolCallContext,
  ): ToolCallResult | undefined | Promise<ToolCallResult | undefined>;
  /**
   * Observes every turn event, synchronously as it happens. Must not throw: a throwing observer
   * is caught (and counted), and the turn goes on.
   */
  onEvent?(event: TurnEvent): void;
}
