import { describe, expect, it } from 'vitest';
import { describeError } from './describe-error';
import { mcpResultText } from './mcp-result-text';

describe('an MCP result as tool_result text', () => {
  it('joins text parts, describes the others, keeps isError', () => {
    expect(
      mcpResultText({
        isError: true,
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside a' } },
          {
            type: 'resource',
            resource: { uri: 'file:///b.bin', blob: 'AA==', mimeType: 'application/zip' },
          },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
        ],
      }),
    ).toEqual({
      isError: true,
      content:
        'first\n[image image/png, 3 bytes]\ninside a\n[resource file:///b.bin application/zip]\n[resource link file:///c c]',
    });
  });

  it('falls back to the structured content as JSON when there is no content', () => {
    expect(mcpResultText({ content: [], structuredContent: { sum: 5 } })).toEqual({
      content: '{"sum":5}',
    });
  });
});

describe('describeError', () => {
  it('names the cause of a network failure', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4010'), {
      code: 'ECONNREFUSED',
    });
    expect(describeError(new TypeError('fetch failed', { cause }))).toBe(
      'fetch failed (connect ECONNREFUSED 127.0.0.1:4010)',
    );
    expect(describeError(new Error('plain'))).toBe('plain');
  });
});
