import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';

/*
 * A status is read from text only where the text says it is one: an SDK's `<status> <message>`,
 * a status line, a reason phrase, `status code 502`. A number that starts a sentence of prose is
 * a count, not a status.
 */

describe('status from message text', () => {
  it.each([
    // openai-node APIError.makeMessage: `${status} ${message}`, logged through String(error).
    [
      'Error: 429 You exceeded your current quota, please check your plan and billing details.',
      429,
    ],
    ['Error: 401 Incorrect API key provided: sk-abc***xyz.', 401],
    ['Error: 400 status code (no body)', 400],
    // @anthropic-ai/sdk: `${status} ${JSON body}`.
    [
      'OverloadedError: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      529,
    ],
    // @google/generative-ai: `Error fetching from ${url}: [${status} ${statusText}] ${message}`.
    [
      '[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-pro:generateContent: [429 Too Many Requests] Resource has been exhausted (e.g. check quota).',
      429,
    ],
    [
      '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
      502,
    ],
    ['HTTP/1.1 503 Service Unavailable', 503],
    ['Request failed with status code 504', 504],
    ['upstream answered status=429', 429],
    ['404 page not found', 404],
  ])('reads %j as %i', (text, status) => {
    expect(classifyError(text).status).toBe(status);
  });

  it.each([
    '500 tokens remaining in this window, then the stream terminated',
    'Error: 404 files skipped; socket hang up',
    '429 requests were retried before fetch failed',
    '3 retries failed: read ECONNRESET',
  ])('does not read a status from the prose %j', (text) => {
    const result = classifyError(text);
    expect(result.status).toBe(undefined);
    expect(result.kind).toBe('connection');
  });
});
