import type { TranscriptEntry } from '@keel/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceModelContext } from '../test/reference-model-context';
import { transcript } from '../test/transcript-builder';
import { buildModelContext } from './build-context';
import { modelContextOf } from './model-context-of';

// What can be appended to a transcript, with ids from small pools so that turn starts, ends and
// folded ids meet messages before and after them (queued, steered, legacy, pending, repeated).
const ids = fc.constantFrom('m1', 'm2', 'm3', 'm4', 'm5');
const step = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), id: ids }),
  fc.record({ kind: fc.constant('start' as const), id: ids }),
  fc.record({
    kind: fc.constant('end' as const),
    id: ids,
    steered: fc.option(fc.uniqueArray(ids, { maxLength: 2 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('assistant' as const) }),
  fc.record({ kind: fc.constant('toolUse' as const), id: fc.constantFrom('u1', 'u2') }),
  fc.record({ kind: fc.constant('toolResult' as const), id: fc.constantFrom('u1', 'u2') }),
  fc.record({ kind: fc.constant('compaction' as const), kept: fc.nat() }),
  // The orchestrator's transcript cache letting entries go: a new, shorter array.
  fc.record({ kind: fc.constant('letGo' as const), count: fc.nat() }),
  // The same array changed in place (nothing in the orchestrator does; the cache must notice).
  fc.record({ kind: fc.constant('cut' as const), count: fc.nat(), atStart: fc.boolean() }),
  // A model call: the context read here, with these messages folded in by the running turn.
  fc.record({
    kind: fc.constant('read' as const),
    folded: fc.uniqueArray(ids, { maxLength: 2 }),
  }),
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/**
 * Runs the steps; at each read, the context built from scratch and the carried-on one against the
 * rules stated plainly (`referenceModelContext`).
 */
function check(steps: Step[]): void {
  const builder = transcript();
  let entries: TranscriptEntry[] = [];
  let turns = 0;
  const add = (write: () => void) => {
    builder.entries.length = 0;
    write();
    entries.push(...builder.entries);
  };
  for (const action of steps) {
    switch (action.kind) {
      case 'user':
        add(() => builder.user(`text ${action.id}`, action.id));
        break;
      case 'start':
        turns += 1;
        add(() => builder.start(`t${turns}`, action.id));
        break;
      case 'end':
        add(() =>
          builder.end(
            `t${turns}`,
            action.id,
            action.steered === undefined ? {} : { steeredMessageIds: action.steered },
          ),
        );
        break;
      case 'assistant':
        add(() => builder.assistant('answer'));
        break;
      case 'toolUse':
        add(() => builder.toolUse(action.id));
        break;
      case 'toolResult':
        add(() => builder.toolResult(action.id));
        break;
      case 'compaction': {
        const kept =
          entries.length === 0 ? null : (entries[action.kept % entries.length]?.id ?? null);
        add(() => builder.compaction('summary', kept));
        break;
      }
      case 'letGo':
        entries = entries.slice(Math.min(action.count, entries.length));
        break;
      case 'cut':
        if (action.atStart) entries.splice(0, action.count);
        else entries.length = Math.max(0, entries.length - action.count);
        break;
      case 'read': {
        const folded = new Set(action.folded);
        const expected = referenceModelContext(entries, folded);
        expect(buildModelContext(entries, { folded })).toEqual(expected);
        expect(modelContextOf(entries, folded)).toEqual(expected);
      }
    }
  }
  expect(modelContextOf(entries, undefined)).toEqual(referenceModelContext(entries));
}

describe('modelContextOf', () => {
  it('gives what the rules give, read after read, as the transcript grows (and so does buildModelContext)', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => check(steps)),
      { numRuns: 2000 },
    );
  });

  it('scans again when an entry repeats the id a compaction kept from, nearer to it', () => {
    // Found by the property above: the repeated id after the compaction moves the kept part.
    check([
      { kind: 'end', id: 'm1', steered: undefined },
      { kind: 'assistant' },
      { kind: 'compaction', kept: 0 },
      { kind: 'read', folded: [] },
      { kind: 'end', id: 'm1', steered: undefined },
    ]);
  });

  it('moves a message written before its turn start once that start is written', () => {
    // A legacy-looking message (no turn entry yet) must not be kept where it was first placed.
    check([
      { kind: 'user', id: 'm1' },
      { kind: 'read', folded: [] },
      { kind: 'assistant' },
      { kind: 'start', id: 'm1' },
      { kind: 'read', folded: [] },
    ]);
    const t = transcript().user('first', 'm1');
    expect(modelContextOf(t.entries, undefined).messages).toHaveLength(1);
    t.assistant('aside').start('t1', 'm1');
    expect(modelContextOf(t.entries, undefined).messages.map((m) => m.role)).toEqual([
      'assistant',
      'user',
    ]);
  });

  it('reads only what was appended since its last call', () => {
    const t = transcript().user('hi', 'm1').start('t1', 'm1').assistant('hello').end('t1', 'm1');
    const first = modelContextOf(t.entries, undefined).messages;
    t.user('again', 'm2').start('t2', 'm2');
    const second = modelContextOf(t.entries, undefined).messages;
    // The placed messages are the same objects: not rebuilt.
    expect(second.slice(0, 2)).toEqual(first);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(second).not.toBe(first);
  });
});
