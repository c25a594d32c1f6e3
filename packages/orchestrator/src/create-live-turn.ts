import type { TurnInput } from './run-turn';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/** A turn's live state as the session queue starts it; `dispose` lets go of the caller's signal. */
export type DisposableTurn = LiveTurn & { dispose(): void };

const callers = new WeakMap<LiveTurn, () => void>();

/**
 * The turn stops following its caller's signal: it now answers other callers' messages too
 * (`steer`: written with its message), so one caller leaving must not end it for the others.
 */
export function detachFromCaller(turn: LiveTurn): void {
  callers.get(turn)?.();
}

export function createLiveTurn(
  runtime: TurnRuntime,
  sessionId: string,
  input: TurnInput,
  signal: AbortSignal | undefined,
): DisposableTurn {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, { once: true });
  const message = input.type === 'existing' ? input.message : undefined;
  let markPrepared: () => void = () => undefined;
  const prepared = new Promise<void>((resolve) => {
    markPrepared = resolve;
  });
  const turn: DisposableTurn = {
    prepared,
    markPrepared: () => markPrepared(),
    sessionId,
    turnId: runtime.createId(),
    messageId: message?.messageId ?? runtime.createId(),
    clientMessageId:
      message?.clientMessageId ?? (input.type === 'new' ? input.clientMessageId : undefined),
    fence: runtime.fences(sessionId),
    entries: [],
    entriesFrom: 0,
    facts: undefined,
    arrived: [],
    folded: new Set(),
    requestedModel: undefined,
    controller,
    stopReason: undefined,
    finished: false,
    dispose() {
      markPrepared();
      signal?.removeEventListener('abort', onAbort);
    },
  };
  callers.set(turn, () => signal?.removeEventListener('abort', onAbort));
  return turn;
}
