import type { CompactionEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../test/compactor-harness';
import { SAMPLE_IDENTIFIERS, SMALL_WINDOW } from '../test/sample-transcript';
import { BUILTIN_PRODUCER_ID, HOOK_PRODUCER_ID } from './producer-ids';
import { SUMMARY_SECTIONS } from './summary-sections';

const setup = useHarness();

describe('beforeCompact', () => {
  it('can cancel: nothing is called, nothing is written', async () => {
    const h = await setup();
    const before = await h.bytes();
    const compactor = h.compactor({
      hooks: { beforeCompact: () => ({ action: 'cancel', reason: 'not now' }) },
    });
    const result = await h.compact(compactor);
    expect(result).toEqual({ status: 'skipped', reason: 'cancelled', detail: 'not now' });
    expect(h.mock.requests).toHaveLength(0);
    expect((await h.bytes()).equals(before)).toBe(true);
    expect(h.events.at(-1)).toEqual({
      type: 'compaction-skipped',
      sessionId: 's-1',
      trigger: 'threshold',
      reason: 'cancelled',
      detail: 'not now',
    });
  });

  it('can supply a summary, which is validated and committed under the hook producer id', async () => {
    const h = await setup();
    const compactor = h.compactor({
      hooks: {
        beforeCompact: (context) => ({
          action: 'supply',
          summary: SUMMARY_SECTIONS.map(
            (s) => `## ${s}\n${context.requiredIdentifiers.join(' ')}`,
          ).join('\n'),
        }),
      },
    });
    const result = await h.compacted(compactor);
    expect(result.entry.provenance).toMatchObject({ producerId: HOOK_PRODUCER_ID, attempts: 1 });
    expect(h.mock.requests).toHaveLength(0);
    expect(h.store.appendCount()).toBe(1);
  });

  it('sees the plan, the identifiers to keep, the budget and the signal', async () => {
    const h = await setup();
    const controller = new AbortController();
    const seen: unknown[] = [];
    const compactor = h.compactor({
      hooks: {
        beforeCompact: (context) => {
          seen.push({
            trigger: context.trigger,
            budgetTokens: context.budgetTokens,
            signal: context.signal,
            compacted: context.plan.compacted.length,
          });
          expect(context.requiredIdentifiers).toEqual(expect.arrayContaining(SAMPLE_IDENTIFIERS));
          return undefined;
        },
      },
    });
    const result = await h.compacted(compactor, { trigger: 'overflow', signal: controller.signal });
    expect(seen).toEqual([
      {
        trigger: 'overflow',
        budgetTokens: SMALL_WINDOW.summaryMaxTokens,
        signal: controller.signal,
        compacted: result.plan.compacted.length,
      },
    ]);
  });

  it('may throw: the error propagates, no producer runs and nothing is written', async () => {
    const h = await setup();
    const before = await h.bytes();
    const compactor = h.compactor({
      hooks: {
        beforeCompact: async () => {
          throw new Error('policy says no');
        },
      },
    });
    await expect(h.compact(compactor)).rejects.toThrow('policy says no');
    expect(h.mock.requests).toHaveLength(0);
    expect((await h.bytes()).equals(before)).toBe(true);
    expect(h.events.at(-1)).toMatchObject({ type: 'compaction-end', outcome: 'failed' });
  });

  it('has a supplied summary that drops an identifier rejected like any other', async () => {
    const h = await setup();
    const dropped: string[] = [];
    const compactor = h.compactor({
      hooks: {
        beforeCompact: (context) => {
          dropped.push(context.requiredIdentifiers[0] ?? '');
          return {
            action: 'supply',
            summary: SUMMARY_SECTIONS.map(
              (s) => `## ${s}\n${context.requiredIdentifiers.slice(1).join(' ')}`,
            ).join('\n'),
          };
        },
      },
    });
    const result = await h.compacted(compactor);
    expect(result.entry.provenance.producerId).toBe(BUILTIN_PRODUCER_ID);
    const end = h.events.at(-1);
    expect(end?.type === 'compaction-end' && end.attempts).toEqual([
      {
        producerId: HOOK_PRODUCER_ID,
        attempt: 1,
        reason: `invalid summary: missing exact identifiers: ${dropped[0]}`,
      },
    ]);
  });

  it('has a supplied placeholder rejected, and the producers run instead', async () => {
    const h = await setup();
    const compactor = h.compactor({
      hooks: { beforeCompact: () => ({ action: 'supply', summary: 'Summary unavailable.' }) },
    });
    const result = await h.compacted(compactor);
    expect(result.entry.provenance.producerId).toBe(BUILTIN_PRODUCER_ID);
    expect(h.mock.requests).toHaveLength(1);
    const end = h.events.at(-1);
    expect(end?.type === 'compaction-end' && end.attempts[0]).toMatchObject({
      producerId: HOOK_PRODUCER_ID,
      reason: expect.stringContaining('missing sections: Goal'),
    });
  });
});

describe('observing a compaction: events, one listener style', () => {
  it('onEvent and subscribe see the same events; compaction-end carries the committed entry', async () => {
    const h = await setup();
    const compactor = h.compactor({ createId: () => 'compaction-1' });
    const subscribed: CompactionEvent[] = [];
    const unsubscribe = compactor.subscribe((event) => subscribed.push(event));
    const result = await h.compacted(compactor);
    unsubscribe();
    expect(subscribed).toEqual(h.events);
    expect(h.events.at(-1)).toMatchObject({
      type: 'compaction-end',
      outcome: 'compacted',
      entry: result.entry,
    });
    await h.compact(compactor, { trigger: 'manual' });
    expect(subscribed).toHaveLength(2);
    expect(h.events).toHaveLength(3);
  });

  it('a listener that throws does not undo or fail the commit', async () => {
    const h = await setup();
    const observed: string[] = [];
    const compactor = h.compactor({
      createId: () => 'compaction-1',
      onEvent: (event) => {
        if (event.type !== 'compaction-end') return;
        observed.push(event.entry?.id ?? 'none');
        throw new Error('observer bug');
      },
    });
    compactor.subscribe(() => {
      throw new Error('another observer bug');
    });
    const result = await h.compact(compactor);
    expect(result.status).toBe('compacted');
    expect(observed).toEqual(['compaction-1']);
    expect(h.store.appendCount()).toBe(1);
  });
});

describe('hooks that ignore the signal', () => {
  it('a hanging beforeCompact is left on caller abort; nothing is written', async () => {
    const h = await setup();
    const controller = new AbortController();
    const compactor = h.compactor({
      hooks: {
        beforeCompact: () => {
          controller.abort(new Error('user stop'));
          return new Promise(() => undefined);
        },
      },
    });
    await expect(h.compact(compactor, { signal: controller.signal })).rejects.toThrow('user stop');
    expect(h.mock.requests).toHaveLength(0);
    expect(h.store.appendCount()).toBe(0);
  });
});
