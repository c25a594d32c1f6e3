// The turn events and outcomes made for every message share their hidden classes (V8 maps): on
// Node 20 an object literal that starts with a spread gets a new map for each property after it,
// at ten times the cost of a plain literal and with every reader of the events megamorphic
// (CONTRIBUTING.md, "Objects on the hot path"). V8's own check, `%HaveSameMap`, compares them.
import { setFlagsFromString } from 'node:v8';
import type { TurnEvent } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (
  a: object,
  b: object,
) => boolean;

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The last two of `items` with the same keys in the same order, as `[key set, earlier, last]`. */
function lastPairs(items: readonly object[]): Array<[string, object, object]> {
  const byKeys = new Map<string, object[]>();
  for (const item of items) {
    const keys = Object.keys(item).join();
    byKeys.set(keys, [...(byKeys.get(keys) ?? []), item]);
  }
  return [...byKeys].flatMap(([keys, list]) =>
    list.length < 2 ? [] : [[keys, list.at(-2), list.at(-1)] as [string, object, object]],
  );
}

describe('what a turn makes for every message', () => {
  it('events of one kind, and outcomes, share a hidden class from turn to turn', async () => {
    harness = await createHarness();
    const outcomes: object[] = [];
    // Enough turns for the inline caches of the literals to warm up (the first few share anyway).
    for (let turn = 0; turn < 30; turn += 1)
      outcomes.push(await harness.orchestrator.runTurn({ sessionId: 's1', input: `m${turn}` }));
    const byType = new Map<string, TurnEvent[]>();
    for (const event of harness.events)
      byType.set(event.type, [...(byType.get(event.type) ?? []), event]);
    const pairs = [
      ...[...byType.values()].flatMap((events) => lastPairs(events)),
      ...lastPairs(outcomes),
    ];
    expect(lastPairs(outcomes)).toHaveLength(1);
    const types = new Set(pairs.map(([, , last]) => (last as { type?: string }).type));
    expect(types).toContain('attempt-start');
    expect(types).toContain('model-event');
    expect(types).toContain('turn-end');
    for (const [keys, earlier, last] of pairs) expect(haveSameMap(earlier, last), keys).toBe(true);
  });
});
