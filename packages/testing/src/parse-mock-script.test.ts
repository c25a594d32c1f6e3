import { describe, expect, it } from 'vitest';
import { parseMockProviderArgs } from './parse-mock-provider-args';
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

  it.each([
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
      help: false,
    });
    expect(
      parseMockProviderArgs(['--port=8080', '--script', 'a.json', '--require-api-key', 'k', '-h']),
    ).toEqual({ port: 8080, scriptPath: 'a.json', requireApiKey: 'k', help: true });
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
