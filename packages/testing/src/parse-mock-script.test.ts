import { describe, expect, it } from 'vitest';
import { MockProviderArgsError, parseMockProviderArgs } from './parse-mock-provider-args';
import { MockScriptError, parseMockScript } from './parse-mock-script';

describe('parseMockScript', () => {
  it('accepts bare behaviours and entries, turning { regex } into a RegExp', () => {
    const script = parseMockScript(
      JSON.stringify([
        { type: 'hang' },
        {
          behavior: { type: 'ok', toolCalls: [{ name: 'Bash', input: { command: 'ls' } }] },
          match: { api: 'anthropic-messages', model: { regex: 'SONNET', flags: 'i' }, apiKey: 'k' },
          times: 2,
        },
        { behavior: { type: 'http-error', status: 429 }, match: { model: 'gpt-5' } },
      ]),
    );
    expect(script[0]).toEqual({ type: 'hang' });
    const entry = script[1] as { match: { model: RegExp }; times: number };
    expect(entry.match.model).toBeInstanceOf(RegExp);
    expect(entry.match.model.test('claude-sonnet-4-5')).toBe(true);
    expect(entry.times).toBe(2);
    expect(script[2]).toEqual({
      behavior: { type: 'http-error', status: 429 },
      match: { model: 'gpt-5' },
    });
  });

  it('reads forMs, match.prefill and the answer faults of ok', () => {
    const [entry] = parseMockScript(
      JSON.stringify([
        {
          behavior: {
            type: 'ok',
            firstChunkDelayMs: 20000,
            malformedAfterChunks: 9,
            omitTerminalEvent: true,
          },
          match: { model: 'fallback', prefill: true },
          forMs: 60000,
        },
      ]),
    );
    expect(entry).toEqual({
      behavior: {
        type: 'ok',
        firstChunkDelayMs: 20000,
        malformedAfterChunks: 9,
        omitTerminalEvent: true,
      },
      match: { model: 'fallback', prefill: true },
      forMs: 60000,
    });
  });

  it.each([
    ['[{"type":"ok","omitTerminalEvent":1}]', /omitTerminalEvent" must be a boolean/],
    ['[{"type":"ok","firstChunkDelayMs":-5}]', /firstChunkDelayMs" must be a non-negative/],
    ['[{"behavior":{"type":"hang"},"forMs":"soon"}]', /forMs" must be a non-negative/],
    ['[{"behavior":{"type":"hang"},"match":{"prefill":"yes"}}]', /prefill" must be a boolean/],
    ['{', /not valid JSON/],
    ['{}', /must be a JSON array/],
    ['[1]', /script\[0\]: expected an object/],
    ['[{"type":"http-error"}]', /"status" must be a non-negative number/],
    ['[{"type":"reset-after-chunks"}]', /"chunks" must be a non-negative number/],
    ['[{"type":"ok","toolCalls":[{"name":"x"}]}]', /"toolCalls" must be an array/],
    ['[{"behavior":{"type":"ok"},"times":0}]', /"times" must be a positive number/],
    ['[{"behavior":{"type":"ok"},"match":{"api":"gemini"}}]', /"match.api" must be one of/],
    ['[{"behavior":{"type":"ok"},"match":{"model":{"regex":"("}}}]', /invalid regex/],
    ['[{"behavior":{"type":"ok"},"match":{"model":5}}]', /"match.model" must be a string/],
  ])('rejects %s', (text, message) => {
    expect(() => parseMockScript(text)).toThrow(MockScriptError);
    expect(() => parseMockScript(text)).toThrow(message);
  });
});

describe('parseMockProviderArgs', () => {
  it('parses flags in both forms, with defaults', () => {
    expect(parseMockProviderArgs([])).toEqual({
      port: 0,
      scriptPath: undefined,
      requireApiKey: undefined,
      chaos: undefined,
      demo: false,
      help: false,
    });
    expect(
      parseMockProviderArgs(['--port=8080', '--script', 'a.json', '--require-api-key', 'k', '-h']),
    ).toEqual({
      port: 8080,
      scriptPath: 'a.json',
      requireApiKey: 'k',
      chaos: undefined,
      demo: false,
      help: true,
    });
  });

  it('parses --demo and the chaos flags into the provider options', () => {
    expect(parseMockProviderArgs(['--demo', '--chaos-seed', '42'])).toMatchObject({
      demo: true,
      chaos: { seed: '42' },
    });
    const args = parseMockProviderArgs([
      '--chaos-seed=s1',
      '--chaos-rates',
      'overloaded=0.2, hang=0',
      '--chaos-model',
      '/^claude-(opus|sonnet)/i',
      '--chaos-api-key',
      'sk-flaky',
      '--chaos-burst',
      '5',
      '--chaos-retry-after=3',
    ]);
    expect(args.chaos).toEqual({
      seed: 's1',
      rates: { overloaded: 0.2, hang: 0 },
      match: { model: /^claude-(opus|sonnet)/i, apiKey: 'sk-flaky' },
      overloadBurst: 5,
      retryAfterSeconds: 3,
    });
    expect(parseMockProviderArgs(['--chaos-seed', '1', '--chaos-model', 'gpt-5']).chaos).toEqual({
      seed: '1',
      match: { model: 'gpt-5' },
    });
  });

  it.each([
    [['--chaos-rates', 'hang=0.1'], '--chaos-rates needs --chaos-seed'],
    [['--chaos-seed', '1', '--chaos-rates', 'hang'], '--chaos-rates must look like'],
    [['--chaos-seed', '1', '--chaos-rates', 'boom=0.1'], 'unknown fault "boom"'],
    [['--chaos-seed', '1', '--chaos-rates', 'hang=0.7,stall=0.7'], 'sum to at most 1'],
    [['--chaos-seed', '1', '--chaos-burst', '0'], 'overloadBurst must be an integer >= 1'],
    [
      ['--chaos-seed', '1', '--chaos-retry-after', 'soon'],
      '--chaos-retry-after must be an integer',
    ],
    [['--chaos-seed', '1', '--chaos-model', '/(/'], '--chaos-model: Invalid regular expression'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseMockProviderArgs(argv)).toThrow(MockProviderArgsError);
    expect(() => parseMockProviderArgs(argv)).toThrow(message);
  });

  it('rejects a negative port and a flag where a value belongs', () => {
    expect(() => parseMockProviderArgs(['--port', '-1'])).toThrow(
      /needs a value|must be an integer/,
    );
    expect(() => parseMockProviderArgs(['--script', '--port', '1'])).toThrow(
      '--script needs a value',
    );
  });
});
