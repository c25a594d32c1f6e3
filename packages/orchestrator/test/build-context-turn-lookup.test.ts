// How build-context.ts reads turn entries: only a turn start places a user message (a turn end
// naming it does not), a message written after its turn started stays where it is, a queued
// message is pending whenever any turn entry comes before it (the transcript's first line included,
// compacted away or not), and a compaction on the transcript's first line still counts.
import { describe, expect, it } from 'vitest';
import { buildModelContext } from '../src/build-context';
import { lines, transcript } from './transcript-builder';

const shown = (t: ReturnType<typeof transcript>) => lines(buildModelContext(t.entries).messages);

describe('turn entries and where user messages go', () => {
  it('a turn end naming a legacy message is no start for it: the message stays in place', () => {
    const t = transcript()
      .user('old', 'l1')
      .end('t0', 'l1')
      .user('new', 'm2')
      .start('t2', 'm2')
      .assistant('reply');
    expect(shown(t)).toEqual(['user: old', 'user: new', 'assistant: reply']);
  });

  it('a message written after its turn started is shown where it was written', () => {
    const t = transcript().start('t1', 'm1').user('hi', 'm1').assistant('hello').end('t1', 'm1');
    expect(shown(t)).toEqual(['user: hi', 'assistant: hello']);
  });

  it('a legacy message kept by a compaction stays, however close the first turn entry after it', () => {
    // m2 was written before any turn entry (t1 started after it), so it is legacy with or without
    // the compaction that kept it; m1 is placed where t1 started.
    const t = transcript()
      .user('ask', 'm1')
      .user('another', 'm2')
      .start('t1', 'm1')
      .assistant('reply')
      .end('t1', 'm1');
    expect(shown(t)).toEqual(['user: another', 'user: ask', 'assistant: reply']);
    t.compaction('S', 'm2');
    expect(shown(t)).toEqual(['user: another', 'assistant: reply']);
  });

  it('a queued message kept by a compaction stays pending when the turns before it were compacted', () => {
    const t = transcript()
      .user('first', 'm1')
      .start('t1', 'm1')
      .assistant('reply')
      .end('t1', 'm1')
      .user('queued', 'm2')
      .compaction('S', 'm2');
    expect(shown(t)).toEqual([]);
  });

  it('a turn entry on the transcript’s first line makes a later message pending, not legacy', () => {
    const t = transcript().end('t0', 'm0').user('queued', 'm2').compaction('S', 'm2');
    expect(shown(t)).toEqual([]);
  });
});

describe('compactions at the edges of the transcript', () => {
  it('a compaction on the first line is found: its summary is handed over', () => {
    const t = transcript().compaction('S', null).user('hi', 'm1').start('t1', 'm1');
    const context = buildModelContext(t.entries);
    expect(context.summary).toBe('S');
    expect(lines(context.messages)).toEqual(['user: hi']);
  });

  it('a compaction that kept nothing reads nothing before it but the latest turn entry', () => {
    let t = transcript();
    for (let turn = 0; turn < 200; turn += 1)
      t = t
        .user(`old ${turn}`, `o${turn}`)
        .start(`ot${turn}`, `o${turn}`)
        .end(`ot${turn}`, `o${turn}`);
    t = t.compaction('S', null).user('now', 'm1').start('t1', 'm1');
    const at = t.entries.findIndex((entry) => entry.type === 'compaction');
    // Whether any turn came before is answered by the turn end right before the compaction.
    const guarded = new Proxy(t.entries, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key) && Number(key) < at - 1)
          throw new Error(`entry ${key}, before the compaction, was read`);
        return Reflect.get(target, key, receiver);
      },
    });
    expect(lines(buildModelContext(guarded).messages)).toEqual(['user: now']);
  });
});
