import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HttpResponse } from './http-response';

const bytes = (text: string) => Buffer.from(text, 'utf8');

function answer(body: Readable | null, status = 200, type = 'application/json') {
  return new HttpResponse(body, {
    status,
    statusText: 'OK',
    headers: new Headers({ 'content-type': type }),
    url: 'http://127.0.0.1:1/v1/x',
  });
}

describe('HttpResponse', () => {
  it('reads the body whole as a Response does: text without a byte order mark, json, bytes, arrayBuffer, blob', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(await answer(Readable.from([bom, bytes('{"a":'), bytes('1}')])).text()).toBe('{"a":1}');
    expect(await answer(Readable.from([bytes('{"a":'), bytes('[1,2]}')])).json()).toEqual({
      a: [1, 2],
    });
    expect(Buffer.from(await answer(Readable.from([bytes('ab'), bytes('c')])).bytes())).toEqual(
      bytes('abc'),
    );
    const buffer = await answer(Readable.from([bytes('xyz')])).arrayBuffer();
    expect(buffer.byteLength).toBe(3);
    expect(Buffer.from(buffer).toString()).toBe('xyz');
    const blob = await answer(Readable.from([bytes('<p>')]), 200, 'text/html').blob();
    expect(blob.type).toBe('text/html');
    expect(await blob.text()).toBe('<p>');
    expect(await answer(null, 204).text()).toBe('');
  });

  it('says ok for 2xx only, and keeps status, headers and url', () => {
    expect(answer(null, 200).ok).toBe(true);
    expect(answer(null, 299).ok).toBe(true);
    expect(answer(null, 300).ok).toBe(false);
    expect(answer(null, 199).ok).toBe(false);
    const response = answer(null, 429);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.url).toBe('http://127.0.0.1:1/v1/x');
    expect(response.body).toBeNull();
  });

  it('yields the bytes as they arrive when iterated, without a web stream', async () => {
    const source = new PassThrough();
    const response = answer(source, 200, 'text/event-stream');
    const iterator = (response.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    source.write('data: one\n\n');
    expect(Buffer.from((await iterator.next()).value).toString()).toBe('data: one\n\n');
    expect(response.bodyUsed).toBe(true);
    source.end('data: two\n\n');
    expect(Buffer.from((await iterator.next()).value).toString()).toBe('data: two\n\n');
    expect((await iterator.next()).done).toBe(true);
  });

  it('refuses a second read of the body, as a Response does', async () => {
    const response = answer(Readable.from([bytes('{}')]));
    expect(response.bodyUsed).toBe(false);
    await response.text();
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    await expect(response.json()).rejects.toThrow('Body is unusable');
    expect(() => response.body?.getReader()).toThrow(TypeError);
  });

  it('becomes a web stream for a reader that asks for one, and is read through it from then on', async () => {
    const response = answer(Readable.from([bytes('a'), bytes('b')]));
    const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    expect(response.bodyUsed).toBe(true);
    const read: string[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read())
      read.push(Buffer.from(next.value).toString());
    expect(read.join('')).toBe('ab');
  });

  it('clones what is left to read: both copies get every byte', async () => {
    const response = answer(Readable.from([bytes('{"x":'), bytes('true}')]));
    const copy = response.clone();
    expect(copy).toBeInstanceOf(Response);
    expect(copy.status).toBe(200);
    expect(await copy.json()).toEqual({ x: true });
    expect(await response.json()).toEqual({ x: true });
  });

  it('cancelled, stops reading: the source is destroyed', async () => {
    const source = new PassThrough();
    const response = answer(source);
    await response.body?.cancel();
    expect(source.destroyed).toBe(true);
    expect(response.bodyUsed).toBe(true);
  });

  it('errors the iteration with the reason its source was destroyed with (an abort)', async () => {
    const source = new PassThrough();
    const response = answer(source, 200, 'text/event-stream');
    const iterator = (response.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    source.write('data: one\n\n');
    await iterator.next();
    const reason = new DOMException('This operation was aborted', 'AbortError');
    source.destroy(reason);
    await expect(iterator.next()).rejects.toBe(reason);
  });
});
