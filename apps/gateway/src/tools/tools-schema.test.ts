import { describe, expect, it } from 'vitest';
import { toolsSchema } from './tools-schema';

const issues = (input: unknown) => {
  const result = toolsSchema.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('the tools key', () => {
  it('keeps the old array of built-in names valid, and means no MCP server when absent', () => {
    expect(toolsSchema.parse(['roll_dice'])).toEqual({ builtin: ['roll_dice'], mcp: {} });
    expect(toolsSchema.parse(undefined)).toEqual({ builtin: [], mcp: {} });
  });

  it('takes stdio and HTTP servers with their allow-lists, defaults applied', () => {
    expect(
      toolsSchema.parse({
        builtin: ['current_time'],
        mcp: {
          fs: { command: 'npx', allow: ['read_text_file'] },
          web: {
            url: 'http://127.0.0.1:9/mcp',
            headers: { authorization: 'Bearer x' },
            allow: ['echo'],
          },
        },
      }),
    ).toEqual({
      builtin: ['current_time'],
      mcp: {
        fs: {
          kind: 'stdio',
          command: 'npx',
          args: [],
          env: {},
          allow: ['read_text_file'],
          startTimeoutMs: 30_000,
        },
        web: {
          kind: 'http',
          url: 'http://127.0.0.1:9/mcp',
          headers: { authorization: 'Bearer x' },
          allow: ['echo'],
          startTimeoutMs: 30_000,
        },
      },
    });
  });

  it('refuses a server without an allow-list, a name that would not split, an unknown built-in', () => {
    expect(issues({ mcp: { fs: { command: 'npx' } } })).toEqual([
      'mcp.fs.allow: Invalid input: expected array, received undefined',
    ]);
    expect(issues({ mcp: { fs: { allow: ['a'] } } })).toEqual([
      'mcp.fs: needs either "command" (stdio) or "url" (HTTP)',
    ]);
    expect(issues({ mcp: { fs: { url: 'http://x/', args: ['a'], allow: ['a'] } } })).toEqual([
      'mcp.fs.args: is for stdio servers ("command")',
    ]);
    expect(issues({ mcp: { a__b: { command: 'npx', allow: ['x'] } } }).join('\n')).toMatch(
      /letters, digits or "-"/,
    );
    expect(issues({ mcp: { fs: { command: 'npx', allow: [] } } }).join('\n')).toMatch(
      /at least one tool/,
    );
    expect(issues(['rm_rf'])).not.toEqual([]);
    expect(issues({ mcp: { fs: { command: 'npx', url: 'http://x/', allow: ['a'] } } })).not.toEqual(
      [],
    );
  });
});
