import type { ToolCall } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { demoConversation } from '../test/demo-conversation';
import { defaultMockReply } from './default-mock-reply';
import { mockDemoTools, sidesAskedFor } from './mock-demo-model';
import { createMockProvider } from './mock-provider';
import type { MockApi, MockProvider, MockProviderOptions } from './mock-provider-types';

const APIS: readonly MockApi[] = ['anthropic-messages', 'openai-chat', 'openai-responses'];
const NOW = '2026-11-30T12:34:56.000Z';
const providers: MockProvider[] = [];

async function start(options: MockProviderOptions = { demo: true }): Promise<MockProvider> {
  const provider = await createMockProvider(options);
  providers.push(provider);
  return provider;
}
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

/** The tools, run deterministically: a fixed clock, and a die that shows sides - 1. */
function run(call: ToolCall): string {
  if (call.name === 'current_time') return NOW;
  if (call.name === 'roll_dice') return String(Number(call.input['sides']) - 1);
  return 'unexpected';
}

const cases = APIS.flatMap((api) => [
  [api, true],
  [api, false],
]) as Array<[MockApi, boolean]>;

describe.each(cases)('the demo model on %s (stream: %s)', (api, stream) => {
  it('calls current_time when asked for the time, then answers with the result', async () => {
    const mock = await start();
    const conversation = await demoConversation(mock, api, 'What time is it?', {
      stream,
      tools: mockDemoTools,
      run,
    });
    expect(conversation.first.text).toBe('');
    expect(conversation.first.toolCalls).toEqual([
      { id: expect.stringMatching(/^(toolu|call)_mock_1$/), name: 'current_time', input: {} },
    ]);
    expect(conversation.final).toEqual({ text: `The current time is ${NOW}.`, toolCalls: [] });
    expect(mock.requests.map((request) => request.behavior)).toEqual(['ok', 'ok']);
  });

  it('calls roll_dice with the sides asked for, then answers with the roll', async () => {
    const mock = await start();
    const conversation = await demoConversation(mock, api, 'Roll a d20 for me', {
      stream,
      tools: mockDemoTools,
      run,
    });
    expect(conversation.first.toolCalls).toEqual([
      { id: expect.any(String), name: 'roll_dice', input: { sides: 20 } },
    ]);
    expect(conversation.final?.text).toBe('I rolled a 20-sided die and got 19.');
  });

  it('makes both calls when asked both, and answers both results', async () => {
    const mock = await start();
    const conversation = await demoConversation(mock, api, 'Roll the dice and tell me the time', {
      stream,
      tools: mockDemoTools,
      run,
    });
    expect(conversation.first.toolCalls.map((call) => [call.name, call.input])).toEqual([
      ['current_time', {}],
      ['roll_dice', { sides: 6 }],
    ]);
    expect(conversation.final?.text).toBe(
      `The current time is ${NOW}. I rolled a 6-sided die and got 5.`,
    );
  });

  it('says so when the tool asked for is not offered, and gives the default reply otherwise', async () => {
    const mock = await start();
    const onlyDice = mockDemoTools.filter((tool) => tool.name === 'roll_dice');
    const time = await demoConversation(mock, api, 'what time is it', {
      stream,
      tools: onlyDice,
      run,
    });
    expect(time).toEqual({
      first: { text: "I can't tell the time: no current_time tool was offered.", toolCalls: [] },
    });
    const hello = await demoConversation(mock, api, 'hello there', {
      stream,
      tools: mockDemoTools,
      run,
    });
    expect(hello.first).toEqual({
      text: defaultMockReply({ messages: 'hello there' }),
      toolCalls: [],
    });
  });
});

describe('the demo model', () => {
  it('is deterministic: the same conversation gives the same answers and ids on a new provider', async () => {
    const transcripts = [];
    for (const provider of [await start(), await start()]) {
      const answers = [];
      for (const api of APIS) {
        answers.push(
          await demoConversation(provider, api, 'roll a 12-sided die, what time is it?', {
            stream: true,
            tools: mockDemoTools,
            run,
          }),
        );
      }
      transcripts.push(answers);
    }
    expect(transcripts[1]).toEqual(transcripts[0]);
    expect(transcripts[0]?.map((answer) => answer.final?.text)).toEqual(
      Array(3).fill(`The current time is ${NOW}. I rolled a 12-sided die and got 11.`),
    );
  });

  it('is off by default, and scripted entries and chaos faults come before it', async () => {
    const plain = await start({});
    const asked = await demoConversation(plain, 'openai-chat', 'What time is it?', {
      stream: false,
      tools: mockDemoTools,
      run,
    });
    expect(asked.first.text).toBe(defaultMockReply({ messages: 'What time is it?' }));
    const mock = await start({
      demo: true,
      chaos: { seed: 1, rates: { 'server-error': 1 }, match: { model: 'claude-demo' } },
    });
    mock.enqueue({ type: 'ok', text: 'scripted' });
    const ask = () =>
      demoConversation(mock, 'anthropic-messages', 'What time is it?', {
        stream: false,
        tools: mockDemoTools,
        run,
      });
    expect((await ask()).first.text).toBe('scripted');
    await expect(ask()).rejects.toMatchObject({ status: expect.any(Number) });
    const outOfScope = await demoConversation(mock, 'openai-chat', 'What time is it?', {
      stream: false,
      tools: mockDemoTools,
      run,
    });
    expect(outOfScope.final?.text).toBe(`The current time is ${NOW}.`);
    expect(mock.requests.map((request) => request.chaos?.fault)).toEqual([
      undefined,
      'server-error',
      undefined,
      undefined,
    ]);
  });

  it('reads the sides asked for', () => {
    expect(sidesAskedFor('roll a D8')).toBe(8);
    expect(sidesAskedFor('a 100-sided die')).toBe(100);
    expect(sidesAskedFor('roll 3 dice with 10 sides')).toBe(10);
    expect(sidesAskedFor('roll a d1')).toBe(6);
    expect(sidesAskedFor('roll the dice')).toBe(6);
  });
});
