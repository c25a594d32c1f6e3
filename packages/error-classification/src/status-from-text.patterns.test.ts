import { describe, expect, it } from 'vitest';
import { statusFromText } from './status-from-text';

/*
 * Each way text may state a status, with a text that only that way reads, and the near misses
 * each must refuse: every pattern of `statusFromText` is needed, and none reads more than it says.
 */
describe('statusFromText: each pattern on its own', () => {
  it.each([
    // A leading status before a JSON body, `status code`, or a reason phrase in any case.
    ['529 {"type":"error"}', 529],
    ['Error: 503 - [{"error":{"code":503}}]', 503],
    ['400 status code (no body)', 400],
    ['error: 400 status code (no body)', 400],
    ['  APIError:   404: not found', 404],
    // A leading status before a capitalised sentence or a quote (an SDK's `<status> <message>`).
    ['Error: 429 You exceeded your current quota', 429],
    ['401 "Invalid token"', 401],
    ['403 `key` revoked', 403],
    // A status beside its reason phrase anywhere in the text.
    ['the upstream said 502 bad gateway twice', 502],
    ['proxy answered 413 - Payload Too Large', 413],
    // A status line, with or without a minor version.
    ['< HTTP/2 429', 429],
    ['got HTTP/1.1 500 from upstream', 500],
    ['a status line padded: HTTP/1.1   503', 503],
    // After words that name a status.
    ['error code: 520', 520],
    ['api error 500 from the upstream', 500],
    ['got status 418 from the teapot', 418],
    ['http status: 451 upstream', 451],
    // `status=`, `status_code:`, `statusCode =`.
    ['upstream answered status=429', 429],
    ['retrying after status_code: 503', 503],
    ['statusCode = 504 from the gateway', 504],
  ])('reads %j as %i', (text, status) => {
    expect(statusFromText(text)).toBe(status);
  });

  it.each([
    ['a leading count before prose', '500 tokens remaining'],
    ['a leading count before lowercase words', 'Error: 404 files skipped'],
    ['a four-digit number', '4290 You exceeded the quota'],
    ['a status that is no error', 'HTTP/1.1 200 OK'],
    ['a 3xx beside its phrase', 'the upstream said 304 not modified'],
    ['a 6xx', '600 Bad Request'],
    ['a reason phrase glued to more letters', 'the upstream said 502 bad gatewayish'],
    ['a status glued to more digits', 'status=4291'],
    ['status words with no number after them', 'status code unknown, 500 retries left'],
    ['a number far from any status words', 'the http client made 503 calls today'],
    ['a number before a sentence, not leading the text', 'we sent 500 Requests today'],
    ['a number before JSON, not leading the text', 'the count was 500 {"tokens":1}'],
  ])('refuses %s: %j', (_what, text) => {
    expect(statusFromText(text)).toBeUndefined();
  });

  it('a leading status before prose is still read when a status pattern further on names one', () => {
    expect(statusFromText('500 tokens later: HTTP/1.1 503 Service Unavailable')).toBe(503);
  });
});
