import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';
import { collectErrorFacts, type ErrorFacts } from './collect-error-facts';
import { createClassifier } from './create-classifier';

/** Classifies with a first rule that records what the matchers are given. */
function classifyAndSee(error: unknown): { kind: string; facts: ErrorFacts } {
  let seen: ErrorFacts | undefined;
  const classifier = createClassifier({
    rules: [
      {
        name: 'spy',
        match: (_error, { facts }) => {
          seen = facts;
          return undefined;
        },
      },
    ],
  });
  const { kind } = classifier.classify(error);
  if (seen === undefined) throw new Error('the spy rule did not run');
  return { kind, facts: seen };
}

const MEGABYTE = 1_000_000;

describe('the text matched is bounded', () => {
  it('a 1 MB message still classifies when the signal is in its first part', () => {
    const padding = ' lorem ipsum'.repeat(MEGABYTE / 12);
    expect(classifyError(`read ECONNRESET${padding}`)).toMatchObject({ kind: 'connection' });
    expect(classifyError(new Error(`The model is overloaded.${padding}`)).kind).toBe('overloaded');
    expect(classifyError(`503 Service Unavailable${padding}`)).toMatchObject({
      kind: 'server_error',
      status: 503,
    });
  });

  it('the matchers see at most 8 KB of one message, however long it is', () => {
    const { facts } = classifyAndSee(new Error('x'.repeat(MEGABYTE)));
    expect(facts.messages).toHaveLength(1);
    expect(facts.messages[0]?.length).toBe(8192);
    expect(facts.text.length).toBeLessThanOrEqual(8192 + 200);
  });

  it('a signal past the first 8 KB is not read', () => {
    expect(classifyError(`${'.'.repeat(MEGABYTE)} read ECONNRESET`).kind).toBe('unknown');
  });

  it('a huge outer message does not hide the cause', () => {
    const cause = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const error = new Error('y'.repeat(MEGABYTE), { cause });
    expect(classifyError(error)).toMatchObject({ kind: 'connection', code: 'ECONNRESET' });
  });

  it('the matchers see at most 32 KB of messages in all, over a wide tree of huge ones', () => {
    const errors = Array.from({ length: 16 }, (_, index) => new Error(`${index}`.repeat(MEGABYTE)));
    const { facts } = classifyAndSee(new AggregateError(errors, 'z'.repeat(MEGABYTE)));
    const messageChars = facts.messages.reduce((sum, message) => sum + message.length, 0);
    expect(messageChars).toBeLessThanOrEqual(32_768);
    expect(facts.text.length).toBeLessThanOrEqual(32_768 + 2_000);
  });

  it('collectErrorFacts reports the bounded messages', () => {
    expect(collectErrorFacts('a'.repeat(20_000)).messages[0]).toHaveLength(8192);
  });
});

describe('prototype keys in parsed bodies', () => {
  it('an own "constructor" property is not a class name', () => {
    const parsed: unknown = JSON.parse('{"constructor":{"name":"ThrottlingException"}}');
    expect(collectErrorFacts(parsed).names).toEqual([]);
    expect(classifyError(parsed).kind).toBe('unknown');
    const abort: unknown = JSON.parse('{"message":"x","constructor":{"name":"AbortError"}}');
    expect(classifyError(abort).kind).toBe('unknown');
  });

  it('a "__proto__" key in JSON does not change what is read', () => {
    const parsed: unknown = JSON.parse('{"__proto__":{"status":429,"code":"ECONNRESET"}}');
    expect(classifyError(parsed).kind).toBe('unknown');
  });
});

describe('codes stated in message text', () => {
  it('count when there is no HTTP status', () => {
    const facts = collectErrorFacts('Error: connect ECONNREFUSED 127.0.0.1:443');
    expect(facts.codes).toEqual(['ECONNREFUSED']);
    expect(classifyError('An error occurred (AccessDeniedException) when calling X').kind).toBe(
      'auth',
    );
  });

  it('do not count beside an HTTP status: they describe the provider side', () => {
    const logged = 'Error: 500 The upstream said: read ECONNRESET';
    expect(collectErrorFacts(logged).codes).toEqual([]);
    expect(classifyError(logged)).toMatchObject({ kind: 'server_error', status: 500 });
  });

  it('are read case-sensitively, as systems spell them', () => {
    expect(collectErrorFacts('the econnreset count and the throttlingexception').codes).toEqual([]);
  });
});
