import type { TurnEvent } from '@keel/spec';
import type { TurnEmitter } from './turn-emitter';
import type { TurnRuntime } from './turn-runtime';

/**
 * "Durable before acknowledged" (DESIGN.md): a turn's user message is flushed while its first model
 * call runs, and nothing about the turn may reach anyone before that flush is done. The turn's
 * steps emit through `runtime`, whose emitter keeps the turn's events, in order, until `open`:
 * with no flush (or once it is done) they go out; when the flush failed, they and every later one
 * are dropped but the turn's start and end (the turn ends with the storage error).
 */
export interface HeldTurnEvents {
  /** The runtime for the turn's steps: the same, but for an emitter that holds back this turn's events. */
  readonly runtime: TurnRuntime;
  /**
   * Lets the events go once `durable` settles (at once without it). Only the first call counts;
   * later calls return the first one's answer.
   */
  open(durable?: Promise<void>): Promise<void>;
  /**
   * Opens (if nobody did) and waits: `undefined` once the events went out, else the flush's error.
   */
  settled(): Promise<unknown>;
}

export function holdTurnEvents(runtime: TurnRuntime, turnId: string): HeldTurnEvents {
  const base = runtime.emitter;
  let held: TurnEvent[] | undefined = [];
  let failed = false;
  let opened: Promise<unknown> | undefined;
  // After a failed flush only the turn's start and end go out, whenever they come.
  const passes = (event: TurnEvent) =>
    !failed || event.type === 'turn-start' || event.type === 'turn-end';

  const own: Omit<TurnEmitter, 'observerErrors'> & { [BASE]: TurnEmitter } = {
    [BASE]: base,
    emit(event) {
      if (event.turnId !== turnId) base.emit(event);
      else if (held !== undefined) held.push(event);
      else if (passes(event)) base.emit(event);
    },
    subscribe: (listener) => base.subscribe(listener),
    watch: (id, listener) => base.watch(id, listener),
  };
  // `observerErrors` comes from the prototype (see `emitterProperties`).
  const emitter = Object.setPrototypeOf(own, emitterProperties) as TurnEmitter;

  function letGo(failure: unknown): unknown {
    const events = held ?? [];
    held = undefined;
    failed = failure !== undefined;
    for (const event of events) if (passes(event)) base.emit(event);
    return failure;
  }

  function open(durable?: Promise<void>): Promise<unknown> {
    opened ??=
      durable === undefined
        ? Promise.resolve(letGo(undefined))
        : durable.then(
            () => letGo(undefined),
            (error: unknown) => letGo(error ?? new Error('the flush failed')),
          );
    return opened;
  }

  // Everything else reads through to the shared runtime (`stopping` changes while turns run).
  const view: TurnRuntime = Object.create(runtime, { emitter: { value: emitter } });
  return {
    runtime: view,
    open: async (durable) => {
      await open(durable);
    },
    settled: () => open(),
  };
}

/** The emitter a turn's holding emitter passes its events on to. */
const BASE = Symbol('base emitter');

/**
 * A holding emitter's `observerErrors`, its base's, one getter for every turn (their prototype):
 * a getter in each one's own literal would keep the turn's held events alive through every
 * scavenge until the next full collection (see `fenceProperties` in adopting-fence.ts).
 */
const emitterProperties = {
  get observerErrors(): number {
    return (this as unknown as { [BASE]: TurnEmitter })[BASE].observerErrors;
  },
};
