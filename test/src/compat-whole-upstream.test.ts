// A client that asks for no stream gets its answer from non-streamed upstream calls (the built
// gateway, the real `openai` and `@anthropic-ai/sdk` clients, the loopback mock provider), with the
// same failover: a body cut mid-way falls over, a 500 is retried in place, and a whole answer slower
// than the first-token timeout is still taken (only the whole call is timed). Streamed clients keep
// streaming upstream.
import Anthropic from '@anthropic-ai/sdk';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { script, startCompatGateway, TOKEN, upstream } from './compat-openai-support';
import { type GatewayProcess, removeDir } from './support/gateway-process';

let mock: MockProvider;
let gateway: GatewayProcess;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startCompatGateway(mock, {
    authToken: TOKEN,
    models: { primary: 'co/whole-default' },
    routes: {
      anthropic: { primary: 'ca/whole-a' },
      failover: { primary: 'co/whole-primary', fallbacks: ['ca/whole-fallback'] },
      'failover-a': { primary: 'ca/whole-primary-a', fallbacks: ['co/whole-fallback-o'] },
      retried: { primary: 'ca/whole-retried' },
      slow: { primary: 'co/whole-slow', fallbacks: ['ca/whole-never'] },
      hanging: { primary: 'co/whole-hang', fallbacks: ['ca/whole-after-hang'] },
    },
    // The whole-call bound, the only clock of an unstreamed upstream call.
    turn: { callTimeoutMs: 6_000 },
    // One retry in place for a fast failure; for `slow`, clocks far shorter than its answer.
    retry: { maxRetries: 1, baseDelayMs: 0, maxDelayMs: 0 },
    settings: { 'co/whole-slow': { firstTokenTimeoutMs: 300, stallTimeoutMs: 300 } },
  });
  openai = new OpenAI({ apiKey: TOKEN, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: TOKEN, baseURL: gateway.url, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  await mock?.close();
});

const ask = [{ role: 'user' as const, content: 'hi' }];
const streamFlags = (model: string) => upstream(mock, model).map((request) => request.stream);

describe('a non-streamed client, a non-streamed upstream call', () => {
  it('openai SDK to an OpenAI upstream: asked without a stream, answered whole', async () => {
    script(mock, 'whole-default', {
      type: 'ok',
      text: 'One piece.',
      usage: { inputTokens: 7, outputTokens: 3 },
    });
    const completion = await openai.chat.completions.create({ model: 'default', messages: ask });
    expect(completion.choices[0]?.message.content).toBe('One piece.');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
    expect(completion.model).toBe('co/whole-default');
    expect(streamFlags('whole-default')).toEqual([false]);
  });

  it('openai SDK to an Anthropic upstream, with a tool call: asked without a stream', async () => {
    script(mock, 'whole-a', {
      type: 'ok',
      toolCalls: [{ id: 'toolu_whole1', name: 'lookup', input: { q: 'keel' } }],
    });
    const completion = await openai.chat.completions.create({
      model: 'anthropic',
      messages: ask,
      tools: [
        {
          type: 'function',
          function: { name: 'lookup', parameters: { type: 'object', properties: {} } },
        },
      ],
    });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'toolu_whole1',
        type: 'function',
        function: { name: 'lookup', arguments: '{"q":"keel"}' },
      },
    ]);
    expect(streamFlags('whole-a')).toEqual([false]);
  });

  it('Anthropic SDK to both kinds of upstream: asked without a stream', async () => {
    script(mock, 'whole-a', { type: 'ok', text: 'From Messages.' });
    script(mock, 'whole-default', { type: 'ok', text: 'From Chat Completions.' });
    const fromA = await anthropic.messages.create({
      model: 'anthropic',
      max_tokens: 64,
      messages: ask,
    });
    const fromO = await anthropic.messages.create({
      model: 'default',
      max_tokens: 64,
      messages: ask,
    });
    expect(fromA.content).toEqual([{ type: 'text', text: 'From Messages.' }]);
    expect(fromO.content).toEqual([{ type: 'text', text: 'From Chat Completions.' }]);
    expect(streamFlags('whole-a').at(-1)).toBe(false);
    expect(streamFlags('whole-default').at(-1)).toBe(false);
  });

  it('a streamed client still streams upstream', async () => {
    script(mock, 'whole-default', { type: 'ok', text: 'Streamed.' });
    script(mock, 'whole-a', { type: 'ok', text: 'Streamed too.' });
    const chat = await openai.chat.completions
      .stream({ model: 'default', messages: ask })
      .finalChatCompletion();
    const message = await anthropic.messages
      .stream({ model: 'anthropic', max_tokens: 64, messages: ask })
      .finalMessage();
    expect(chat.choices[0]?.message.content).toBe('Streamed.');
    expect(message.content).toEqual([{ type: 'text', text: 'Streamed too.' }]);
    expect(streamFlags('whole-default').at(-1)).toBe(true);
    expect(streamFlags('whole-a').at(-1)).toBe(true);
  });
});

describe('failover on non-streamed upstream calls', () => {
  it('a body cut by a reset is retried, then falls over to the fallback (openai SDK)', async () => {
    const cut = {
      type: 'reset-after-chunks' as const,
      chunks: 2,
      text: 'half an answer, then the connection is gone',
    };
    script(mock, 'whole-primary', cut, cut);
    script(mock, 'whole-fallback', { type: 'ok', text: 'The fallback, whole.' });
    const completion = await openai.chat.completions.create({ model: 'failover', messages: ask });
    expect(completion.choices[0]?.message.content).toBe('The fallback, whole.');
    expect(completion.model).toBe('ca/whole-fallback');
    expect(streamFlags('whole-primary')).toEqual([false, false]);
    expect(streamFlags('whole-fallback')).toEqual([false]);
  });

  it('an overloaded primary falls over to the fallback (Anthropic SDK)', async () => {
    script(mock, 'whole-primary-a', mockFaults.overloaded());
    script(mock, 'whole-fallback-o', { type: 'ok', text: 'Fallback over the other wire.' });
    const message = await anthropic.messages.create({
      model: 'failover-a',
      max_tokens: 64,
      messages: ask,
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Fallback over the other wire.' }]);
    expect(message.model).toBe('co/whole-fallback-o');
    expect(streamFlags('whole-primary-a')).toEqual([false]);
    expect(streamFlags('whole-fallback-o')).toEqual([false]);
  });

  it('a 500 is retried in place, the retry also unstreamed', async () => {
    script(mock, 'whole-retried', mockFaults.serverError(500), {
      type: 'ok',
      text: 'Second time lucky.',
    });
    const completion = await openai.chat.completions.create({ model: 'retried', messages: ask });
    expect(completion.choices[0]?.message.content).toBe('Second time lucky.');
    expect(streamFlags('whole-retried')).toEqual([false, false]);
  });

  it('a whole answer slower than the first-token timeout is taken, not fallen over', async () => {
    script(mock, 'whole-slow', { type: 'ok', text: 'Slow but whole.', firstChunkDelayMs: 1_500 });
    const completion = await openai.chat.completions.create({ model: 'slow', messages: ask });
    expect(completion.choices[0]?.message.content).toBe('Slow but whole.');
    expect(completion.model).toBe('co/whole-slow');
    expect(upstream(mock, 'whole-never')).toEqual([]);
  });

  it('a primary that never answers falls over after turn.callTimeoutMs', async () => {
    script(mock, 'whole-hang', { type: 'hang' });
    script(mock, 'whole-after-hang', { type: 'ok', text: 'From the fallback.' });
    const completion = await openai.chat.completions.create({ model: 'hanging', messages: ask });
    expect(completion.choices[0]?.message.content).toBe('From the fallback.');
    expect(completion.model).toBe('ca/whole-after-hang');
    expect(streamFlags('whole-hang')).toEqual([false]);
  }, 60_000);
});
