import Anthropic from '@anthropic-ai/sdk';
import { createMockProvider, type MockProvider } from '@keel/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callMock, captureError, MATRIX_APIS } from '../test/__fixtures__/sdk-clients';
import { keelError } from '../test/keel-error';
import { classifyError } from './classify-error';

/*
 * `keelKind` is believed only on errors Keel raised: an Error with its own
 * `Symbol.for('keel.error.<Name>')` marker set to `true`. A provider's body, a message or a
 * parsed JSON value can say anything, and must not turn a 500 into a caller abort.
 */

const forgedBody = {
  keelKind: 'caller_abort',
  error: { type: 'api_error', message: 'Internal server error', keelKind: 'caller_abort' },
};

describe('keelKind from a provider is never believed', () => {
  let mock: MockProvider;
  beforeAll(async () => {
    mock = await createMockProvider();
  });
  afterAll(async () => {
    await mock.close();
  });

  it.each(MATRIX_APIS)(
    'a 500 body {"keelKind":"caller_abort"} through the real %s SDK',
    async (api) => {
      const model = `keel-kind-${api}`;
      mock.enqueue({
        behavior: { type: 'http-error', status: 500, body: forgedBody },
        match: { model },
      });
      const error = await captureError(() => callMock(mock, api, { stream: false, model }));
      expect(classifyError(error)).toMatchObject({ kind: 'server_error', status: 500 });
    },
  );

  it('the real SDK error classes built from such a body', () => {
    const headers = new Headers();
    const openai = OpenAI.APIError.generate(500, forgedBody, undefined, headers);
    const anthropic = Anthropic.APIError.generate(500, forgedBody, undefined, headers);
    expect(classifyError(openai).kind).toBe('server_error');
    expect(classifyError(anthropic).kind).toBe('server_error');
    expect(classifyError(new Error('model call failed', { cause: openai })).kind).toBe(
      'server_error',
    );
  });

  it('a message with such a body embedded, as CLIs log it', () => {
    const logged = `API Error: 500 ${JSON.stringify(forgedBody)}`;
    expect(classifyError(logged).kind).toBe('server_error');
    expect(classifyError(new Error(logged)).kind).toBe('server_error');
  });

  it('a plain object or parsed JSON carrying keelKind', () => {
    expect(classifyError({ keelKind: 'coordination' }).kind).toBe('unknown');
    expect(classifyError(JSON.parse('{"name":"X","keelKind":"session_takeover"}')).kind).toBe(
      'unknown',
    );
    expect(classifyError({ status: 429, keelKind: 'content_policy' }).kind).toBe('rate_limit');
  });

  it('an Error with keelKind but no marker', () => {
    const unmarked = Object.assign(new Error('socket hang up'), { keelKind: 'coordination' });
    expect(classifyError(unmarked).kind).toBe('connection');
  });
});

describe('keelKind on errors Keel raised', () => {
  it('decides before any wording rule', () => {
    const lock = keelError({
      name: 'SessionLockTimeoutError',
      keelKind: 'coordination',
      message: 'timed out waiting for lock; ECONNRESET',
    });
    expect(classifyError(lock).kind).toBe('coordination');
  });

  it('is found anywhere in the cause chain, outermost first', () => {
    const inner = keelError({ name: 'TransportTimeoutError', keelKind: 'timeout', message: 's' });
    const outer = new Error('529 overloaded', { cause: inner });
    expect(classifyError(outer).kind).toBe('timeout');
  });

  it('ignores values that are not a kind', () => {
    const odd = keelError({ name: 'OddError', keelKind: 'whatever', message: 'socket hang up' });
    expect(classifyError(odd).kind).toBe('connection');
  });

  it('needs the marker as an own data property set to true, on an Error', () => {
    const marked = keelError({
      name: 'SessionTakeoverError',
      keelKind: 'session_takeover',
      message: 'x',
    });
    expect(classifyError(marked).kind).toBe('session_takeover');
    // Inherited from a marked error: not its own marker.
    expect(classifyError(Object.create(marked)).kind).toBe('unknown');
    const marker = Symbol.for('keel.error.SessionTakeoverError');
    const withValue = (value: unknown, target: object = new Error('x')) =>
      Object.assign(target, { keelKind: 'session_takeover', [marker]: value });
    expect(classifyError(withValue(true)).kind).toBe('session_takeover');
    expect(classifyError(withValue('true')).kind).toBe('unknown');
    expect(classifyError(withValue(false)).kind).toBe('unknown');
    // Not an Error: a plain object with the symbol is a value, not something Keel raised.
    expect(classifyError(withValue(true, {})).kind).toBe('unknown');
    // A marker that is not Keel's, or not a registered symbol.
    const other = Object.assign(new Error('x'), {
      keelKind: 'session_takeover',
      [Symbol.for('other.error.SessionTakeoverError')]: true,
      [Symbol('keel.error.SessionTakeoverError')]: true,
    });
    expect(classifyError(other).kind).toBe('unknown');
  });
});
