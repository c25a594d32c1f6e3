import { randomUUID } from 'node:crypto';
import { classifyError } from '@keel/error-classification';
import type {
  CallOutcome,
  CompactResult,
  ContentBlock,
  FenceCallOptions,
  ProviderHealth,
  SessionFenceFactory,
  TurnEvent,
  TurnHooks,
  TurnOutcome,
} from '@keel/spec';
import { compactManually } from './compact-manually';
import { createEntryFactory } from './entries';
import { buildModelChain } from './model-chain';
import { OrchestratorConfigError, OrchestratorError } from './orchestrator-error';
import type { Classification, OrchestratorOptions } from './orchestrator-options';
import { createProviderHealth } from './provider-health';
import { resolveSettings } from './resolve-settings';
import { type RunCallRequest, runCall } from './run-call';
import { createSessionQueue } from './session-queue';
import { createSystemClock } from './system-clock';
import { createTranscriptCache } from './transcript-cache';
import { transcriptFacts } from './transcript-facts';
import { createTurnEmitter } from './turn-emitter';
import { type LiveTurn, stopForShutdown, type TurnRuntime } from './turn-runtime';

export interface RunTurnRequest {
  sessionId: string;
  /** The user's message: text, or content blocks. */
  input: string | ContentBlock[];
  /** The client's idempotency key: a repeat returns the stored outcome and never runs a second turn. */
  clientMessageId?: string;
  /** Stops the turn (`aborted`): no retry, no fallback, the session let go. */
  signal?: AbortSignal;
  /**
   * Receives the events of the turn that answers this message, as they happen (with `steer`,
   * also those of the running turn it was folded into): for streaming its text to a client.
   */
  onEvent?: (event: TurnEvent) => void;
  /**
   * How the user's message is made durable (DESIGN.md "Durable before acknowledged"). `own`
   * (default): flushed on its own while the model call runs; the turn's events (to `onEvent` and
   * every subscriber) go out once it is durable. `with-reply`: flushed with the turn's last write
   * (one fsync a turn instead of two); the turn's events wait for that write, so nobody sees
   * anything of the turn before its end — for a caller that takes the answer whole, with nobody
   * following the session live. A message written with others waiting for the session (`steer`,
   * queued messages) is flushed on its own whatever this says.
   */
  messageFlush?: 'own' | 'with-reply';
}

export interface Orchestrator {
  /** Runs (or queues) the turn that answers one user message. Always resolves with one outcome. */
  runTurn(request: RunTurnRequest): Promise<TurnOutcome>;
  /**
   * Sets the session's model (`providerId/model`) with a `model-selection` entry — through the
   * running turn's fence when a turn runs, which then switches at its next attempt boundary.
   */
  selectModel(sessionId: string, model: string, options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Answers, in order, every user message of the session that no turn answered (after a crash).
   * With `minAgeMs`, only messages written at least that long ago: when other gateways share the
   * sessions, a younger one may still be in a turn over there.
   */
  recover(
    sessionId: string,
    options?: { signal?: AbortSignal; minAgeMs?: number },
  ): Promise<TurnOutcome[]>;
  /**
   * Compacts the session now (`manual`), between its turns, through a fence of its own. Resolves
   * with what the compactor did; rejects when no compactor is configured or every producer failed
   * (nothing written).
   */
  compact(
    sessionId: string,
    options?: { focus?: string; signal?: AbortSignal },
  ): Promise<CompactResult>;
  /** Whether a turn of the session runs here, or a message of it waits here for another gateway's. */
  isRunning(sessionId: string): boolean;
  /**
   * Turns running now, and turns waiting behind them, across every session; a message waiting for
   * another gateway's turn is a queued one.
   */
  stats(): { runningTurns: number; queuedTurns: number };
  /**
   * Lets running and queued turns finish for up to `graceMs` (default 10 000), then stops the rest:
   * they end `aborted` with the restart notice and let their sessions go.
   */
  shutdown(options?: { graceMs?: number }): Promise<void>;
  /**
   * A stateless call (the compatible endpoints): the client's whole conversation through one
   * model call with a turn's retries, rotation, fallback, breakers and decisions, along `route`
   * (default `models`). Nothing is stored; tool calls go back to the caller. Rejects with
   * `OrchestratorConfigError` on a route naming an unconfigured provider, else resolves with
   * exactly one outcome.
   */
  runCall(request: RunCallRequest): Promise<CallOutcome>;
  /** Every turn event of every session; returns the function that removes the listener. */
  subscribe(listener: (event: TurnEvent) => void): () => void;
  readonly health: ProviderHealth;
  /** The most provider requests one turn can make with these options. */
  readonly requestCeiling: number;
  /** Observer (`onEvent`) calls that threw and were ignored. */
  readonly observerErrors: number;
}

/** Creates an orchestrator: validates the options at once and shares one provider health. */
export function createOrchestrator(options: OrchestratorOptions): Orchestrator {
  const settings = resolveSettings(options);
  const clock = options.clock ?? createSystemClock();
  const hooks: readonly TurnHooks[] =
    options.hooks === undefined
      ? []
      : Array.isArray(options.hooks)
        ? options.hooks
        : [options.hooks as TurnHooks];
  const createId = options.createId ?? randomUUID;
  const emitter = createTurnEmitter(hooks);
  const runtime: TurnRuntime = {
    storage: options.storage,
    fences: boundLeaseWait(options.fences, settings.lockTimeoutMs),
    router: options.router,
    compactor: options.compactor,
    tools: options.tools,
    health: options.health ?? createProviderHealth({ clock }),
    budgets: options.budgets,
    clock,
    hooks,
    emitter,
    entries: createEntryFactory(createId, clock.now),
    classify:
      options.classify ?? ((error, context) => classifyError(error, context) as Classification),
    random: options.random ?? Math.random,
    createId,
    settings,
    transcripts: createTranscriptCache(),
    stopping: false,
    claims:
      options.gatewayId === undefined || options.storage.turnClaims === undefined
        ? undefined
        : {
            turnClaims: options.storage.turnClaims,
            gatewayId: options.gatewayId,
            ttlMs: options.turnClaims?.ttlMs ?? 30_000,
            pollMs: options.turnClaims?.pollMs ?? 200,
          },
  };
  const queue = createSessionQueue(runtime);
  /** Stateless calls running now: their turns (to stop at shutdown) and their promises. */
  const calls = new Set<LiveTurn>();
  const pending = new Set<Promise<unknown>>();
  const callsDone = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  };

  return {
    runTurn(request) {
      const content: ContentBlock[] =
        typeof request.input === 'string' ? [{ type: 'text', text: request.input }] : request.input;
      return queue.submit({
        sessionId: request.sessionId,
        content,
        ...(request.clientMessageId === undefined
          ? {}
          : { clientMessageId: request.clientMessageId }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(request.onEvent === undefined ? {} : { onEvent: request.onEvent }),
        ...(request.messageFlush === undefined ? {} : { messageFlush: request.messageFlush }),
      });
    },

    async selectModel(sessionId, model, callOptions = {}) {
      buildModelChain(model, [], settings.providers);
      if (!settings.selectable.has(model)) {
        throw new OrchestratorConfigError({
          message: `Model "${model}" is not configured; configure it as the primary, a fallback or a models.settings key (configured: ${[...settings.selectable].join(', ')})`,
          path: 'models',
        });
      }
      const entry = runtime.entries.modelSelection({ model, source: 'user' });
      const running = queue.running(sessionId);
      if (
        running !== undefined &&
        (running.fence.status === 'held' || running.fence.status === 'released')
      ) {
        await running.fence.append([entry], callOptions);
        running.entries.push(entry);
        running.requestedModel = model;
        return;
      }
      const fence = runtime.fences(sessionId);
      try {
        await fence.acquire(callOptions);
        await fence.append([entry], callOptions);
      } finally {
        await fence.end().catch(() => undefined);
      }
    },

    async recover(sessionId, callOptions = {}) {
      const read = await runtime.storage.read(
        sessionId,
        callOptions.signal === undefined ? {} : { signal: callOptions.signal },
      );
      const outcomes: TurnOutcome[] = [];
      const cutoff = clock.now() - (callOptions.minAgeMs ?? 0);
      const due = transcriptFacts(read.entries).unanswered.filter(
        (message) => callOptions.minAgeMs === undefined || Date.parse(message.timestamp) <= cutoff,
      );
      for (const message of due) {
        outcomes.push(await queue.answer(sessionId, message, callOptions.signal));
      }
      return outcomes;
    },

    compact(sessionId, compactOptions = {}) {
      const compactor = runtime.compactor;
      if (compactor === undefined) {
        return Promise.reject(
          new OrchestratorConfigError({ message: 'No compactor is configured', path: 'compactor' }),
        );
      }
      return queue.exclusive(sessionId, () =>
        compactManually(runtime, compactor, sessionId, compactOptions),
      );
    },

    async runCall(request) {
      if (runtime.stopping) {
        throw new OrchestratorError({ message: 'The orchestrator is shutting down' });
      }
      const running = runCall(runtime, request, calls);
      pending.add(running);
      void running.finally(() => pending.delete(running)).catch(() => undefined);
      return running;
    },

    isRunning(sessionId) {
      return queue.running(sessionId) !== undefined || queue.waitingElsewhere(sessionId);
    },

    stats() {
      return queue.stats();
    },

    async shutdown(shutdownOptions = {}) {
      const graceMs = shutdownOptions.graceMs ?? 10_000;
      const idle = Promise.all([queue.idle(), callsDone()]);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<'grace-over'>((resolve) => {
        timer = setTimeout(() => resolve('grace-over'), graceMs);
      });
      const first = await Promise.race([idle.then(() => 'idle' as const), graceOver]);
      clearTimeout(timer);
      if (first === 'idle') return;
      // Past the grace period every turn still running or queued stops with the restart notice.
      runtime.stopping = true;
      for (const turn of [...queue.all(), ...calls]) stopForShutdown(turn);
      await Promise.all([queue.idle(), callsDone()]);
    },

    subscribe: emitter.subscribe,
    health: runtime.health,
    requestCeiling: settings.requestCeiling,
    get observerErrors() {
      return emitter.observerErrors;
    },
  };
}

/**
 * Bounds every fence's lease wait (`acquire`: a turn's start, `selectModel`, `compact`) by
 * `lockTimeoutMs`, whatever the fence's own timeout: past it the wait is aborted and `acquire`
 * rejects with a `coordination` error, so the turn ends `error` without a request.
 */
function boundLeaseWait(
  fences: SessionFenceFactory,
  lockTimeoutMs: number | undefined,
): SessionFenceFactory {
  if (lockTimeoutMs === undefined) return fences;
  return (sessionId) => {
    const fence = fences(sessionId);
    const acquire = async (callOptions: FenceCallOptions = {}) => {
      const timer = new AbortController();
      const caller = callOptions.signal;
      // The caller's abort reaches the wait through a listener removed when the wait ends, not
      // `AbortSignal.any` (on Node 20 about 20 µs a call, and weak references for the GC to track:
      // once per turn).
      const forward = () => timer.abort(caller?.reason);
      if (caller?.aborted === true) forward();
      else caller?.addEventListener('abort', forward, { once: true });
      const timeout = setTimeout(() => {
        const error = new OrchestratorError({
          message: `Session "${sessionId}" is busy: its lease was not free within lockTimeoutMs (${lockTimeoutMs} ms)`,
        });
        timer.abort(Object.assign(error, { keelKind: 'coordination' as const }));
      }, lockTimeoutMs);
      try {
        await fence.acquire({ ...callOptions, signal: timer.signal });
      } catch (error) {
        if (timer.signal.aborted && caller?.aborted !== true) throw timer.signal.reason;
        throw error;
      } finally {
        clearTimeout(timeout);
        caller?.removeEventListener('abort', forward);
      }
    };
    return new Proxy(fence, {
      get(target, property) {
        if (property === 'acquire') return acquire;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
}
