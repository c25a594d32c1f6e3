import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ALL_FIXTURES } from '../test/__fixtures__/all-fixtures';
import type { ErrorFixture } from '../test/__fixtures__/error-fixture';
import { classifyError } from './classify-error';
import { ERROR_KINDS } from './error-kind';

/** The error the real SDK builds from this status, body and headers. */
function sdkError(http: NonNullable<ErrorFixture['http']>): Error {
  const headers = new Headers(http.headers ?? {});
  // A body that is not JSON reaches the SDK as text: no error object, the text as message.
  const [body, text] =
    typeof http.body === 'string' ? [undefined, http.body] : [http.body, undefined];
  return http.sdk === 'openai'
    ? OpenAI.APIError.generate(http.status, body, text, headers)
    : Anthropic.APIError.generate(http.status, body, text, headers);
}

function signalFor(fixture: ErrorFixture): AbortSignal | undefined {
  if (!fixture.callerAborted) return undefined;
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
}

describe('fixture table', () => {
  it('has at least three recorded fixtures per kind, each with a source', () => {
    for (const kind of ERROR_KINDS) {
      const count = ALL_FIXTURES.filter((fixture) => fixture.kind === kind).length;
      expect(count, kind).toBeGreaterThanOrEqual(3);
    }
    for (const fixture of ALL_FIXTURES)
      expect(fixture.source.length, fixture.name).toBeGreaterThan(5);
    const names = ALL_FIXTURES.map((fixture) => fixture.name);
    expect(new Set(names).size).toBe(names.length);
  });

  describe.each(ALL_FIXTURES.map((fixture) => [fixture.name, fixture] as const))(
    '%s',
    (_name, fixture) => {
      const signal = signalFor(fixture);
      if (fixture.http) {
        const http = fixture.http;
        it(`as a real ${http.sdk} SDK error → ${fixture.kind}`, () => {
          const error = sdkError(http);
          const result = classifyError(error, signal ? { signal } : {});
          expect(result.kind).toBe(fixture.kind);
          expect(result.status).toBe(http.status);
          if (fixture.code !== undefined) expect(result.code).toBe(fixture.code);
          if (fixture.provider !== undefined) expect(result.provider).toBe(fixture.provider);
        });
        it(`as a logged "<status> <json>" wrapper with the SDK error as cause-less text → ${fixture.kind}`, () => {
          const body = typeof http.body === 'string' ? http.body : JSON.stringify(http.body);
          const error = new Error(`API Error: ${http.status} ${body}`);
          const result = classifyError(error, signal ? { signal } : {});
          expect(result.kind).toBe(fixture.kind);
          expect(result.status).toBe(http.status);
        });
        it(`as a wrapper whose cause is the SDK error → ${fixture.kind}`, () => {
          const error = new Error('model call failed', { cause: sdkError(http) });
          expect(classifyError(error, signal ? { signal } : {}).kind).toBe(fixture.kind);
        });
      } else {
        it(`→ ${fixture.kind}`, () => {
          const result = classifyError(fixture.error, signal ? { signal } : {});
          expect(result.kind).toBe(fixture.kind);
          if (fixture.code !== undefined) expect(result.code).toBe(fixture.code);
          if (fixture.provider !== undefined) expect(result.provider).toBe(fixture.provider);
          if (fixture.status !== undefined) expect(result.status).toBe(fixture.status);
        });
      }
    },
  );
});
