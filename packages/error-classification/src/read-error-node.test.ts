import { describe, expect, it } from 'vitest';
import { collectErrorFacts } from './collect-error-facts';

/** What one node of the walk gives (`readErrorNode`, through the public walk). */
describe('the status of one node', () => {
  it.each([
    ['status', { status: 429 }, 429],
    ['statusCode', { statusCode: 503 }, 503],
    ['$metadata.httpStatusCode', { $metadata: { httpStatusCode: 500 } }, 500],
    ['a numeric code', { code: 401 }, 401],
    ['a three-digit text', { status: '404' }, 404],
    ['the lowest error status', { status: 400 }, 400],
    ['the highest error status', { status: 599 }, 599],
  ])('is read from %s', (_where, node, status) => {
    expect(collectErrorFacts(node).status).toBe(status);
  });

  it.each([
    ['a success status', { status: 200 }],
    ['399', { status: 399 }],
    ['600', { status: 600 }],
    ['a fraction', { status: 429.5 }],
    ['text with a space before', { status: ' 429' }],
    ['text with a space after', { status: '429 ' }],
    ['four digits of text', { status: '0429' }],
    ['two digits of text', { status: '42' }],
    ['$metadata that is not an object', { $metadata: 500 }],
  ])('is not read from %s', (_where, node) => {
    expect(collectErrorFacts(node).status).toBe(undefined);
  });

  it('takes the first field that holds an error status, in the order status, statusCode, $metadata, code', () => {
    expect(collectErrorFacts({ status: 200, statusCode: 502, code: 401 }).status).toBe(502);
    expect(collectErrorFacts({ $metadata: { httpStatusCode: 503 }, code: 401 }).status).toBe(503);
    expect(collectErrorFacts({ status: 429, statusCode: 502 }).status).toBe(429);
  });

  it('keeps the outermost node’s status', () => {
    expect(collectErrorFacts({ status: 503, error: { status: 429 } }).status).toBe(503);
  });
});

describe('the codes of one node', () => {
  it.each(['code', 'type', 'status', 'errorCode', 'error_code', 'reason'])('reads %s', (key) => {
    expect(collectErrorFacts({ [key]: 'some_code' }).codes).toEqual(['some_code']);
  });

  it('skips a status written as text, the word "error" and non-strings', () => {
    expect(collectErrorFacts({ code: '429', type: 'error', reason: 7 }).codes).toEqual([]);
  });

  it('reads the reasons of at most 8 details, and an object detail’s error_code', () => {
    const details = Array.from({ length: 10 }, (_, index) => ({ reason: `R${index}` }));
    expect(collectErrorFacts({ details: [...details, 'text'] }).codes).toEqual(
      details.slice(0, 8).map(({ reason }) => reason),
    );
    expect(collectErrorFacts({ details: [null, 'x', { reason: 'R' }] }).codes).toEqual(['R']);
    expect(collectErrorFacts({ details: { error_code: 'E' } }).codes).toEqual(['E']);
  });

  it("reads Azure's innererror code", () => {
    expect(
      collectErrorFacts({ innererror: { code: 'ResponsibleAIPolicyViolation' } }).codes,
    ).toEqual(['ResponsibleAIPolicyViolation']);
    expect(collectErrorFacts({ innererror: 'ResponsibleAIPolicyViolation' }).codes).toEqual([]);
  });

  it('keeps each code once, trimmed, and none longer than 200 characters or blank', () => {
    expect(collectErrorFacts({ code: ' E1 ', type: 'E1', reason: '   ' }).codes).toEqual(['E1']);
    expect(collectErrorFacts({ code: 'c'.repeat(200) }).codes).toEqual(['c'.repeat(200)]);
    expect(collectErrorFacts({ code: 'c'.repeat(201) }).codes).toEqual([]);
  });
});

describe('the names of one node', () => {
  class ThrottlingException extends Error {}

  it('reads the name and the class name, but not Object or Error', () => {
    const error = Object.assign(new ThrottlingException('x'), { name: 'Throttled' });
    expect(collectErrorFacts(error).names).toEqual(['Throttled', 'ThrottlingException']);
    expect(collectErrorFacts(Object.assign(new Error('x'), { name: 'Foo' })).names).toEqual([
      'Foo',
    ]);
    expect(collectErrorFacts({ message: 'x' }).names).toEqual([]);
    expect(collectErrorFacts(Object.assign(Object.create(null), { message: 'x' })).names).toEqual(
      [],
    );
  });

  it('reads no class name when reading the prototype throws', () => {
    const hostile = new Proxy(
      { message: 'x' },
      {
        getPrototypeOf() {
          throw new Error('no');
        },
      },
    );
    expect(collectErrorFacts(hostile).names).toEqual([]);
  });
});

describe('the messages of one node', () => {
  it('reads a non-empty string message only', () => {
    expect(collectErrorFacts({ message: '' }).messages).toEqual([]);
    expect(collectErrorFacts({ message: 42 }).messages).toEqual([]);
    expect(collectErrorFacts({ message: 'hi' }).messages).toEqual(['hi']);
  });

  it('keeps the same message once, and takes the first body message as the primary one', () => {
    const facts = collectErrorFacts({
      message: 'wrapper',
      error: { message: 'from the body', error: { message: 'deeper' } },
      cause: { message: 'wrapper' },
    });
    expect(facts.messages).toEqual(['wrapper', 'from the body', 'deeper']);
    expect(facts.primaryMessage).toBe('from the body');
  });

  it('a repeated message does not use up the budget', () => {
    const big = 'a'.repeat(8192);
    const error = { message: big, cause: { message: big, cause: { message: 'b'.repeat(8192) } } };
    const nested = { message: 'c'.repeat(8192), cause: { message: 'd'.repeat(8192) } };
    const facts = collectErrorFacts({ ...error, errors: [nested] });
    // Four distinct 8 KB messages fill the 32 KB budget exactly (breadth first: a, c, b, d).
    expect(facts.messages.map((message) => message[0])).toEqual(['a', 'c', 'b', 'd']);
  });

  it('reads the status a message states only when no field holds one', () => {
    expect(collectErrorFacts(new Error('429 Too Many Requests')).status).toBe(429);
    expect(collectErrorFacts({ status: 503, message: '429 Too Many Requests' }).status).toBe(503);
    expect(
      collectErrorFacts({ message: '502 Bad Gateway', cause: { message: '429 Too Many' } }).status,
    ).toBe(502);
  });
});

describe('the headers of one node', () => {
  it('reads a Headers object, a plain record and a record without a prototype', () => {
    const headers = new Headers({ 'retry-after': '1' });
    expect(collectErrorFacts({ headers }).headers).toBe(headers);
    const record = { 'retry-after': '1' };
    expect(collectErrorFacts({ headers: record }).headers).toBe(record);
    const bare = Object.assign(Object.create(null), { 'retry-after': '1' });
    expect(collectErrorFacts({ headers: bare }).headers).toBe(bare);
  });

  it('skips headers that are a class instance without get, or not an object', () => {
    class Bag {
      'retry-after' = '1';
    }
    expect(collectErrorFacts({ headers: new Bag() }).headers).toBe(undefined);
    expect(collectErrorFacts({ headers: 'retry-after: 1' }).headers).toBe(undefined);
  });

  it("reads an AWS SDK's $response.headers, and keeps the first headers found", () => {
    const first = { 'x-amzn-errortype': 'A' };
    expect(collectErrorFacts({ $response: { headers: first } }).headers).toBe(first);
    expect(collectErrorFacts({ $response: { headers: 'x' } }).headers).toBe(undefined);
    expect(collectErrorFacts({ $response: 'x' }).headers).toBe(undefined);
    const second = { 'retry-after': '2' };
    expect(collectErrorFacts({ headers: first, cause: { headers: second } }).headers).toBe(first);
    expect(collectErrorFacts({ headers: first, $response: { headers: second } }).headers).toBe(
      first,
    );
  });
});
