import { describe, expect, it } from 'vitest';
import { codesInText } from './codes-in-text';

describe('codesInText', () => {
  it.each([
    ['read ECONNRESET', 'ECONNRESET'],
    ['connect ECONNREFUSED 127.0.0.1:443', 'ECONNREFUSED'],
    ['getaddrinfo EAI_AGAIN api.openai.com', 'EAI_AGAIN'],
    ['write EPIPE', 'EPIPE'],
    ["code: 'UND_ERR_SOCKET'", 'UND_ERR_SOCKET'],
    ['UND_ERR_HEADERS_TIMEOUT after 300s', 'UND_ERR_HEADERS_TIMEOUT'],
    ['Error [ERR_STREAM_PREMATURE_CLOSE]: Premature close', 'ERR_STREAM_PREMATURE_CLOSE'],
  ])('reads the Node or undici code in %j', (text, code) => {
    expect(codesInText(text)).toEqual({ codes: [code], names: [] });
  });

  it('reads a gRPC status only where it is followed by a colon', () => {
    expect(codesInText('8 RESOURCE_EXHAUSTED: quota').codes).toEqual(['RESOURCE_EXHAUSTED']);
    expect(codesInText('14 UNAVAILABLE: no').codes).toEqual(['UNAVAILABLE']);
    expect(codesInText('state UNAVAILABLE now').codes).toEqual([]);
    expect(codesInText('RESOURCE_EXHAUSTED, try later').codes).toEqual([]);
  });

  it('reads AWS exception names, whole words only', () => {
    expect(codesInText('ThrottlingException: Rate exceeded')).toEqual({
      codes: [],
      names: ['ThrottlingException'],
    });
    expect(codesInText('An error occurred (AccessDeniedException) when calling X').names).toEqual([
      'AccessDeniedException',
    ]);
    expect(codesInText('an Exception was raised').names).toEqual([]);
    expect(codesInText('ThrottlingExceptions were raised').names).toEqual([]);
    expect(codesInText('xThrottlingException').names).toEqual([]);
  });

  it('reads whole codes only, not codes inside longer words', () => {
    expect(codesInText('XECONNRESET ECONNRESETX').codes).toEqual([]);
    expect(codesInText('XUND_ERR_SOCKET').codes).toEqual([]);
    expect(codesInText('XRESOURCE_EXHAUSTED: no').codes).toEqual([]);
  });

  it('is case-sensitive: prose does not spell codes this way', () => {
    expect(codesInText('read econnreset; resource_exhausted: x; throttlingexception')).toEqual({
      codes: [],
      names: [],
    });
  });

  it('lists Node codes before gRPC statuses, each once, in the order stated', () => {
    const text = '8 RESOURCE_EXHAUSTED: read EPIPE, then ECONNRESET, then EPIPE again';
    expect(codesInText(text).codes).toEqual(['EPIPE', 'ECONNRESET', 'RESOURCE_EXHAUSTED']);
    expect(codesInText('AException BException AException').names).toEqual([
      'AException',
      'BException',
    ]);
  });

  it('takes at most 8 distinct codes of each pattern from one message', () => {
    const node = [
      'ECONNRESET',
      'ECONNREFUSED',
      'ECONNABORTED',
      'EPIPE',
      'ENOTFOUND',
      'EAI_AGAIN',
      'EHOSTUNREACH',
      'EHOSTDOWN',
      'ENETUNREACH',
      'ENETDOWN',
    ];
    const grpc = ['INTERNAL:', 'NOT_FOUND:'];
    const names = Array.from({ length: 10 }, (_, index) => `${'ABCDEFGHIJ'[index]}Exception`);
    const found = codesInText([...node, ...node, ...grpc, ...names].join(' '));
    expect(found.codes).toEqual([...node.slice(0, 8), 'INTERNAL', 'NOT_FOUND']);
    expect(found.names).toEqual(names.slice(0, 8));
  });
});
