import { describe, expect, it } from 'vitest';
import { collectErrorFacts, parseEmbeddedJson } from './collect-error-facts';

/** An error `hops` causes deep whose innermost cause carries `code`. */
function chain(hops: number, code: string): unknown {
  let error: unknown = { code };
  for (let index = 0; index < hops; index++) error = { cause: error };
  return error;
}

describe('where the walk looks', () => {
  it.each(['cause', 'error', 'body', 'response', 'data', 'originalError', 'metadata', 'raw'])(
    'follows %s',
    (key) => {
      expect(collectErrorFacts({ [key]: { code: 'INNER' } }).codes).toEqual(['INNER']);
    },
  );

  it('follows errors, at most 16 of them', () => {
    const errors = Array.from({ length: 17 }, (_, index) => ({ code: `E${index}` }));
    expect(collectErrorFacts({ errors }).codes).toEqual(errors.slice(0, 16).map((e) => e.code));
    expect(collectErrorFacts({ errors: { code: 'NOT_A_LIST' } }).codes).toEqual(['NOT_A_LIST']);
  });

  it('reads a list of bodies, at most 16 of them', () => {
    const bodies = Array.from({ length: 17 }, (_, index) => ({ code: `B${index}` }));
    expect(collectErrorFacts(bodies).codes).toEqual(bodies.slice(0, 16).map((b) => b.code));
  });

  it('parses a body sent as text, but not a data string (often the request)', () => {
    expect(collectErrorFacts({ body: '{"code":"FROM_BODY"}' }).codes).toEqual(['FROM_BODY']);
    expect(collectErrorFacts({ raw: 'x {"code":"FROM_RAW"}' }).codes).toEqual(['FROM_RAW']);
    expect(collectErrorFacts({ data: '{"code":"FROM_DATA"}' }).codes).toEqual([]);
    expect(collectErrorFacts({ data: '{"code":"FROM_DATA"}' }).messages).toEqual([]);
    expect(collectErrorFacts({ body: 42, error: null, cause: undefined }).nodes).toHaveLength(1);
  });

  it('parses JSON inside a message, and inside a text error', () => {
    expect(collectErrorFacts(new Error('529 {"error":{"code":"C1"}}')).codes).toEqual(['C1']);
    expect(collectErrorFacts('529 {"error":{"code":"C2"}}').codes).toEqual(['C2']);
  });

  it('reads a node eight causes deep, not nine', () => {
    expect(collectErrorFacts(chain(8, 'DEEP')).codes).toEqual(['DEEP']);
    expect(collectErrorFacts(chain(9, 'DEEP')).codes).toEqual([]);
  });

  it('parses the JSON of a text node only above the depth bound', () => {
    expect(collectErrorFacts(chain(7, '')).nodes).toHaveLength(8);
    const textAt = (hops: number) => {
      let error: unknown = 'x {"code":"IN_TEXT"}';
      for (let index = 0; index < hops; index++) error = { cause: error };
      return collectErrorFacts(error).codes;
    };
    expect(textAt(7)).toEqual(['IN_TEXT']);
    expect(textAt(8)).toEqual([]);
  });

  it('skips blank text', () => {
    expect(collectErrorFacts('   ').nodes).toEqual([]);
    expect(collectErrorFacts({ cause: ' \n' }).nodes).toHaveLength(1);
  });
});

describe('which message is the provider’s own', () => {
  it('is the first one found in a body, not in a cause or the wrapper', () => {
    expect(collectErrorFacts({ message: 'outer', cause: { message: 'c' } }).primaryMessage).toBe(
      'outer',
    );
    expect(collectErrorFacts({ message: 'outer', error: { message: 'b' } }).primaryMessage).toBe(
      'b',
    );
    expect(
      collectErrorFacts({ message: 'outer', body: { cause: { message: 'c' } } }).primaryMessage,
    ).toBe('outer');
  });

  it('keeps where a list sits: errors of a wrapper are causes, items of a body are bodies', () => {
    expect(collectErrorFacts({ message: 'outer', errors: [{ message: 'e' }] }).primaryMessage).toBe(
      'outer',
    );
    expect(
      collectErrorFacts({ message: 'outer', body: { errors: [{ message: 'e' }] } }).primaryMessage,
    ).toBe('e');
    expect(collectErrorFacts({ message: 'outer', body: [{ message: 'i' }] }).primaryMessage).toBe(
      'i',
    );
    expect(collectErrorFacts([{ message: 'a' }, { message: 'b', error: {} }]).primaryMessage).toBe(
      'a',
    );
  });
});

describe('the facts at the end', () => {
  it('counts names stated in text only when there is no HTTP status', () => {
    expect(collectErrorFacts({ message: 'ThrottlingException: slow down' }).names).toEqual([
      'ThrottlingException',
    ]);
    expect(collectErrorFacts({ status: 500, message: 'ThrottlingException: x' }).names).toEqual([]);
  });

  it('joins messages, codes and names, lower-cased, into the text', () => {
    const facts = collectErrorFacts(Object.assign(new TypeError('Boom'), { code: 'E_X' }));
    expect(facts.text).toBe('boom\ne_x\ntypeerror');
  });

  it('sets no optional field it did not find', () => {
    expect(Object.keys(collectErrorFacts({}))).toEqual([
      'nodes',
      'codes',
      'names',
      'messages',
      'text',
    ]);
  });
});

describe('parseEmbeddedJson', () => {
  it('parses the object between the first { and the last }', () => {
    expect(parseEmbeddedJson('Error: 400 {"a":{"b":1}} (see docs)')).toEqual({ a: { b: 1 } });
  });

  it('answers undefined without braces in order, on bad JSON, and past 64 000 characters', () => {
    expect(parseEmbeddedJson('no braces')).toBe(undefined);
    expect(parseEmbeddedJson('} {')).toBe(undefined);
    expect(parseEmbeddedJson('{not json}')).toBe(undefined);
    const body = '{"a":1}';
    expect(parseEmbeddedJson(body + ' '.repeat(64_000 - body.length))).toEqual({ a: 1 });
    expect(parseEmbeddedJson(body + ' '.repeat(64_001 - body.length))).toBe(undefined);
  });
});
