// What a turn lets go of must die young. V8 allocates the accessor pair of a getter written in an
// object literal in the old generation: the getter's closure, and the whole scope it closes over
// (here the turn), then survive every scavenge until the next full collection (`promotedBytes`
// in @keel/testing shows it). The fence wrapper and the held events' emitter are made for every
// turn, so their read-only properties are getters of a shared prototype; the stateless fence's
// status is a field.
import type { MessageEntry, SessionFence, TurnEvent } from '@keel/spec';
import { promotedBytes } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { adoptingFence } from './adopting-fence';
import { holdTurnEvents } from './held-turn-events';
import { createStatelessFence } from './stateless-fence';
import { createTurnEmitter } from './turn-emitter';
import type { TurnRuntime } from './turn-runtime';

/** The names of `value`'s own properties that are accessors. */
function ownAccessors(value: object): string[] {
  return Object.entries(Object.getOwnPropertyDescriptors(value))
    .filter(([, descriptor]) => descriptor.get !== undefined || descriptor.set !== undefined)
    .map(([name]) => name);
}

/** A fence that adopts (it has `takeAdopted`), its state moving as a real one's does. */
function adoptingInner(): SessionFence & { takeAdopted(): MessageEntry[] } {
  const inner = {
    sessionId: 's',
    status: 'idle' as SessionFence['status'],
    takeover: undefined,
    state: undefined,
    acquire: async () => {
      inner.status = 'held';
    },
    release: async () => {},
    reacquire: async () => {},
    append: async () => ({
      state: { exists: false, identity: '', size: 0, tailLength: 0, tailDigest: '' },
    }),
    check: async () => {},
    end: async () => {
      inner.status = 'ended';
    },
    takeAdopted: () => [],
  };
  return inner;
}

/** About 2 KB. */
const block = (index: number) => new Array<number>(256).fill(index);

describe('objects made for every turn', () => {
  it("a turn's fence wrapper let go is collected young, whatever its turn holds", async () => {
    const inner = adoptingInner();
    const promoted = await promotedBytes((index) => {
      const turnState = block(index);
      return adoptingFence(inner, () => turnState.push(0)).status;
    });
    expect(promoted).toBeLessThan(500);
  });

  it('the wrapper reads the fence it wraps, from its prototype', async () => {
    const inner = adoptingInner();
    const fence = adoptingFence(inner, () => {});
    expect(ownAccessors(fence)).toEqual([]);
    expect([fence.sessionId, fence.status, fence.takeover, fence.state]).toEqual([
      's',
      'idle',
      undefined,
      undefined,
    ]);
    await fence.acquire();
    expect(fence.status).toBe('held');
    await fence.end();
    expect(fence.status).toBe('ended');
  });

  it("a turn's held events let go are collected young", async () => {
    const runtime = { emitter: createTurnEmitter([]) } as unknown as TurnRuntime;
    const promoted = await promotedBytes((index) => {
      const held = holdTurnEvents(runtime, `t${index}`);
      const event = { type: 'turn-start', turnId: `t${index}`, detail: block(index) };
      held.runtime.emitter.emit(event as unknown as TurnEvent);
      return held.runtime.emitter.observerErrors;
    });
    expect(promoted).toBeLessThan(500);
  });

  it("the holding emitter's observerErrors is its base's", () => {
    const base = createTurnEmitter([
      {
        onEvent: () => {
          throw new Error('an observer that throws');
        },
      },
    ]);
    const held = holdTurnEvents({ emitter: base } as unknown as TurnRuntime, 't');
    const { emitter } = held.runtime;
    expect(ownAccessors(emitter)).toEqual([]);
    base.emit({ type: 'turn-start', turnId: 'other' } as unknown as TurnEvent);
    expect(base.observerErrors).toBe(1);
    expect(emitter.observerErrors).toBe(1);
  });

  it("a stateless fence's status is a field that follows its steps", async () => {
    const fence = createStatelessFence('s');
    expect(ownAccessors(fence)).toEqual([]);
    expect(fence.status).toBe('idle');
    await fence.acquire();
    expect(fence.status).toBe('held');
    await fence.release();
    expect(fence.status).toBe('released');
    await fence.reacquire();
    expect(fence.status).toBe('held');
    await fence.end();
    expect(fence.status).toBe('ended');
  });
});
