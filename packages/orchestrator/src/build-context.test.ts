import { describe, expect, it } from 'vitest';
import { lines, transcript } from '../test/transcript-builder';
import { buildModelContext } from './build-context';

describe('buildModelContext', () => {
  it('shows a plain conversation as it is', () => {
    const t = transcript().user('hi', 'm1').start('t1', 'm1').assistant('hello').end('t1', 'm1');
    expect(lines(buildModelContext(t.entries).messages)).toEqual(['user: hi', 'assistant: hello']);
  });

  it('places a message queued during another turn after that turn, at its own turn', () => {
    const t = transcript()
      .user('first', 'm1')
      .start('t1', 'm1')
      .toolUse('u1')
      .user('second', 'm2')
      .toolResult('u1')
      .assistant('answer one')
      .end('t1', 'm1')
      .start('t2', 'm2');
    expect(lines(buildModelContext(t.entries).messages)).toEqual([
      'user: first',
      'assistant: use:u1',
      'tool: result:u1',
      'assistant: answer one',
      'user: second',
    ]);
  });

  it('leaves out a message no turn has started for yet (it is answered by its own turn)', () => {
    const t = transcript().user('first', 'm1').start('t1', 'm1').user('queued', 'm2');
    expect(lines(buildModelContext(t.entries).messages)).toEqual(['user: first']);
  });

  it('folds a steered message in after the tool results pending when it arrived', () => {
    const t = transcript()
      .user('first', 'm1')
      .start('t1', 'm1')
      .toolUse('u1')
      .user('also this', 'm2')
      .toolResult('u1');
    expect(lines(buildModelContext(t.entries, { folded: new Set(['m2']) }).messages)).toEqual([
      'user: first',
      'assistant: use:u1',
      'tool: result:u1',
      'user: also this',
    ]);
  });

  it('keeps a steered message where its turn end says it was folded in, in later turns', () => {
    const t = transcript()
      .user('first', 'm1')
      .start('t1', 'm1')
      .toolUse('u1')
      .user('also this', 'm2')
      .toolResult('u1')
      .assistant('both done')
      .end('t1', 'm1', { steeredMessageIds: ['m2'] })
      .user('third', 'm3')
      .start('t3', 'm3');
    expect(lines(buildModelContext(t.entries).messages)).toEqual([
      'user: first',
      'assistant: use:u1',
      'tool: result:u1',
      'user: also this',
      'assistant: both done',
      'user: third',
    ]);
  });

  it('keeps legacy messages written before any turn entry', () => {
    const t = transcript().user('old').assistant('old reply').user('new', 'm9').start('t9', 'm9');
    expect(lines(buildModelContext(t.entries).messages)).toEqual([
      'user: old',
      'assistant: old reply',
      'user: new',
    ]);
  });

  it('shows only what the latest compaction kept, and hands over its summary', () => {
    const t = transcript()
      .user('one', 'm1')
      .start('t1', 'm1')
      .assistant('reply one')
      .end('t1', 'm1')
      .user('two', 'm2')
      .start('t2', 'm2')
      .assistant('reply two')
      .end('t2', 'm2')
      .compaction('SUMMARY', 'm2');
    const context = buildModelContext(t.entries);
    expect(context.summary).toBe('SUMMARY');
    expect(lines(context.messages)).toEqual(['user: two', 'assistant: reply two']);
  });

  it('a compaction that kept nothing shows only what came after it', () => {
    const t = transcript()
      .user('one', 'm1')
      .start('t1', 'm1')
      .end('t1', 'm1')
      .compaction('S', null)
      .user('two', 'm2')
      .start('t2', 'm2');
    expect(lines(buildModelContext(t.entries).messages)).toEqual(['user: two']);
  });

  it('reads only what the latest compaction kept, however long the transcript before it', () => {
    let t = transcript();
    for (let turn = 0; turn < 2_000; turn += 1)
      t = t
        .user(`old ${turn}`, `o${turn}`)
        .start(`ot${turn}`, `o${turn}`)
        .end(`ot${turn}`, `o${turn}`);
    t = t
      .user('kept', 'm1')
      .start('t1', 'm1')
      .assistant('kept reply')
      .end('t1', 'm1')
      .compaction('S', 'm1')
      .user('now', 'm2')
      .start('t2', 'm2');
    const kept = t.entries.findIndex((entry) => entry.id === 'm1');
    // Only the turn entry right before the kept part may be looked at (is there any turn before it).
    const readable = kept - 1;
    const guarded = new Proxy(t.entries, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key) && Number(key) < readable)
          throw new Error(`entry ${key}, before the kept part, was read`);
        return Reflect.get(target, key, receiver);
      },
    });
    expect(lines(buildModelContext(guarded).messages)).toEqual([
      'user: kept',
      'assistant: kept reply',
      'user: now',
    ]);
  });

  it('a compaction that names an entry after it keeps from the compaction on, reading only near it', () => {
    let t = transcript();
    for (let turn = 0; turn < 2_000; turn += 1)
      t = t
        .user(`old ${turn}`, `o${turn}`)
        .start(`ot${turn}`, `o${turn}`)
        .end(`ot${turn}`, `o${turn}`);
    t = t
      .compaction('S', 'm1')
      .user('kept', 'm1')
      .start('t1', 'm1')
      .assistant('kept reply')
      .end('t1', 'm1');
    const at = t.entries.findIndex((entry) => entry.type === 'compaction');
    // The turn end right before the compaction may be looked at, nothing older.
    const guarded = new Proxy(t.entries, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key) && Number(key) < at - 1)
          throw new Error(`entry ${key}, before the compaction, was read`);
        return Reflect.get(target, key, receiver);
      },
    });
    expect(lines(buildModelContext(guarded).messages)).toEqual([
      'user: kept',
      'assistant: kept reply',
    ]);
  });

  it('a compacted transcript with no turn entries keeps its legacy messages in place', () => {
    const t = transcript().user('legacy one', 'l1').user('legacy two', 'l2').compaction('S', 'l2');
    expect(lines(buildModelContext(t.entries).messages)).toEqual(['user: legacy two']);
  });
});
