import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChaosCall, chaosCall } from '../test/chaos-calls';
import { createMockChaos } from './mock-chaos';
import type { MockChaosFault, MockChaosOptions } from './mock-chaos-types';
import { createMockProvider } from './mock-provider';
import type { MockApi, MockProvider, MockProviderOptions } from './mock-provider-types';

const APIS: readonly MockApi[] = ['anthropic-messages', 'openai-chat', 'openai-responses'];
const providers: MockProvider[] = [];

async function start(options: MockProviderOptions): Promise<MockProvider> {
  const provider = await createMockProvider(options);
  providers.push(provider);
  return provider;
}
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

/** The same mixed sequence of calls (every api, streaming or not), one at a time. */
async function runSequence(provider: MockProvider, length: number): Promise<ChaosCall[]> {
  const calls: ChaosCall[] = [];
  for (let index = 0; index < length; index++) {
    const api = APIS[index % APIS.length]!;
    calls.push(await chaosCall(provider, api, { stream: index % 2 === 0, text: `m${index}` }));
  }
  return calls;
}

/** What a run looked like from both ends: the fault injected and what the client saw. */
function transcriptOf(calls: ChaosCall[]) {
  return calls.map((call) => ({
    fault: call.record.chaos?.fault,
    behavior: call.record.chaos?.behavior,
    texts: call.texts,
    complete: call.complete,
    aborted: call.aborted,
    error: call.error === undefined ? undefined : (call.error as Error).constructor.name,
  }));
}

function decisions(options: MockChaosOptions, count: number, api: MockApi = 'openai-chat') {
  const chaos = createMockChaos(options);
  return Array.from({ length: count }, () => chaos.decide({ api, model: 'm', apiKey: 'k' }));
}

describe('chaos: determinism', () => {
  it('the same seed and request sequence give the same faults and outcomes; another seed differs', async () => {
    const first = await start({ chaos: { seed: 20261130 } });
    const second = await start({ chaos: { seed: '20261130' } });
    const other = await start({ chaos: { seed: 7 } });
    const a = transcriptOf(await runSequence(first, 60));
    const b = transcriptOf(await runSequence(second, 60));
    const c = transcriptOf(await runSequence(other, 60));
    expect(b).toEqual(a);
    expect(second.chaosStats()).toEqual(first.chaosStats());
    expect(c.map((call) => call.fault)).not.toEqual(a.map((call) => call.fault));
    // The run had faults and normal answers, and every fault seen was counted.
    const stats = first.chaosStats();
    const injected = a.filter((call) => call.fault !== undefined);
    expect(injected.length).toBeGreaterThan(0);
    expect(stats.passed).toBeGreaterThan(0);
    expect(stats).toMatchObject({ requests: 60, passed: 60 - injected.length });
    for (const fault of new Set(injected.map((call) => call.fault))) {
      const seen = injected.filter((call) => call.fault === fault).length;
      expect(stats.faults[fault as MockChaosFault]).toBe(seen);
    }
    // Normal answers are the deterministic default reply, complete.
    const passed = a.filter((call) => call.fault === undefined);
    expect(passed.every((call) => call.complete && call.error === undefined)).toBe(true);
    expect(passed[0]?.texts.join('')).toMatch(/^Mock reply [0-9a-f]{8}: you said "m\d+"\.$/);
  });

  it('reset() starts the sequence again from the seed, with zero counts', async () => {
    const provider = await start({ chaos: { seed: 'again', rates: { 'server-error': 0.5 } } });
    const before = transcriptOf(await runSequence(provider, 12));
    provider.reset();
    expect(provider.chaosStats()).toMatchObject({ requests: 0, passed: 0 });
    expect(transcriptOf(await runSequence(provider, 12))).toEqual(before);
  });

  it('reset() also ends an overload burst in progress', () => {
    const options = { seed: 'burst', rates: { overloaded: 0.2 }, overloadBurst: 5 };
    const fresh = decisions(options, 30).map((injection) => injection?.fault);
    expect(fresh[0]).toBeUndefined();
    const chaos = createMockChaos(options);
    const started = fresh.indexOf('overloaded');
    expect(started).toBeGreaterThan(0);
    for (let index = 0; index <= started; index++)
      chaos.decide({ api: 'openai-chat', model: 'm', apiKey: 'k' });
    chaos.reset();
    const again = Array.from(
      { length: 30 },
      () => chaos.decide({ api: 'openai-chat', model: 'm', apiKey: 'k' })?.fault,
    );
    expect(again).toEqual(fresh);
  });

  it('draws each fault at about its rate; a burst answers overloadBurst requests in a row', () => {
    const rates = { 'reset-before-headers': 0.3, overloaded: 0.05 };
    const faults = decisions({ seed: 1, rates, overloadBurst: 4 }, 2000).map(
      (injection) => injection?.fault,
    );
    const resets = faults.filter((fault) => fault === 'reset-before-headers').length;
    expect(resets).toBeGreaterThan(450);
    expect(resets).toBeLessThan(750);
    const runs = faults
      .map((fault) => (fault === 'overloaded' ? 'o' : '.'))
      .join('')
      .match(/o+/g);
    expect(runs?.length).toBeGreaterThan(5);
    for (const run of runs ?? []) expect(run.length % 4).toBe(0);
  });

  it('with default rates about one request in four gets a fault, each kind at least once', () => {
    const injections = decisions({ seed: 'defaults' }, 4000);
    const faulted = injections.filter((injection) => injection !== undefined);
    expect(faulted.length).toBeGreaterThan(800);
    expect(faulted.length).toBeLessThan(1400);
    const kinds = new Set(faulted.map((injection) => injection.fault));
    expect([...kinds].sort()).toEqual(
      [
        'hang',
        'overloaded',
        'rate-limited',
        'reset-after-chunks',
        'reset-before-headers',
        'server-error',
        'stall',
        'stream-error',
        'truncated-stream',
      ].sort(),
    );
  });
});

describe('chaos: scope and precedence', () => {
  it('only requests fitting match get faults; scripted entries win and take no draw', async () => {
    const provider = await start({
      chaos: {
        seed: 3,
        rates: { 'server-error': 1 },
        match: [{ model: 'claude-primary' }, { apiKey: 'sk-flaky' }],
      },
    });
    provider.enqueue({
      behavior: { type: 'ok', text: 'scripted' },
      match: { model: 'claude-primary', apiKey: 'sk-scripted' },
    });
    const api = 'anthropic-messages';
    const primary = await chaosCall(provider, api, { stream: true, model: 'claude-primary' });
    const fallback = await chaosCall(provider, api, { stream: true, model: 'claude-fallback' });
    const flakyKey = await chaosCall(provider, 'openai-chat', {
      stream: false,
      apiKey: 'sk-flaky',
    });
    const scripted = await chaosCall(provider, api, {
      stream: false,
      model: 'claude-primary',
      apiKey: 'sk-scripted',
    });
    expect(primary.error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(primary.record.chaos).toMatchObject({ fault: 'server-error', index: 0 });
    expect(fallback).toMatchObject({ complete: true, error: undefined });
    expect(fallback.record.chaos).toBeUndefined();
    expect(flakyKey.error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(flakyKey.record.chaos?.index).toBe(1);
    expect(scripted.texts).toEqual(['scripted']);
    expect(provider.chaosStats()).toEqual({
      requests: 2,
      passed: 0,
      faults: expect.objectContaining({ 'server-error': 2, hang: 0 }),
    });
  });

  it('without chaos nothing is injected and the stats stay zero', async () => {
    const provider = await start({});
    const call = await chaosCall(provider, 'openai-responses', { stream: true });
    expect(call).toMatchObject({ complete: true, error: undefined });
    expect(provider.chaosStats()).toMatchObject({ requests: 0, passed: 0 });
    expect(Object.values(provider.chaosStats().faults).every((count) => count === 0)).toBe(true);
  });

  it.each([
    [{ seed: Number.NaN }, /chaos.seed/],
    [{ seed: '' }, /chaos.seed/],
    [{ seed: 1, rates: { explode: 0.1 } }, /unknown fault "explode"/],
    [{ seed: 1, rates: { hang: 1.5 } }, /chaos.rates.hang must be a number from 0 to 1/],
    [{ seed: 1, rates: { hang: 0.6, stall: 0.6 } }, /sum to at most 1/],
    [{ seed: 1, overloadBurst: 0 }, /overloadBurst must be an integer >= 1/],
    [{ seed: 1, retryAfterSeconds: 1.5 }, /retryAfterSeconds must be an integer >= 0/],
  ])('rejects %j', async (chaos, message) => {
    await expect(createMockProvider({ chaos: chaos as MockChaosOptions })).rejects.toThrow(message);
  });
});
