import { classifyError } from '@keel/error-classification';
import type { FakeClaudeTurn } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { createCliTestFixture, drain, userTurn } from '../../test/cli-test-fixture';
import { ClaudeCliError } from './claude-cli-error';
import { createClaudeCliTransport } from './create-claude-cli-transport';

async function runTurn(turn: FakeClaudeTurn, env: Record<string, string> = {}) {
  const fixture = createCliTestFixture({ turns: [turn] });
  const errors: string[] = [];
  const transport = createClaudeCliTransport({
    command: fixture.fake.command,
    cwd: fixture.cwd,
    env: { ...fixture.fake.env, ...env },
    hooks: { onRequestError: (context) => errors.push(context.errorKind) },
  });
  const outcome = await drain(transport.stream({ messages: [userTurn('hi')] }));
  return { ...outcome, hookKinds: errors };
}

describe('createClaudeCliTransport: errors', () => {
  it.each([
    [529, 'overloaded_error', 'Overloaded', 'overloaded'],
    [429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', 'rate_limit'],
    [401, 'authentication_error', 'invalid x-api-key', 'auth'],
    [
      400,
      'invalid_request_error',
      'prompt is too long: 210000 tokens > 200000 maximum',
      'context_overflow',
    ],
    [500, 'api_error', 'Internal server error', 'server_error'],
  ] as const)(
    'maps an API error result %i (%s) to %s',
    async (status, errorType, message, kind) => {
      const { events, error, hookKinds } = await runTurn({
        steps: [{ type: 'api-error', status, errorType, message }],
      });
      // The CLI's synthetic "API Error: …" line is not a reply.
      expect(events.filter((event) => event.type === 'text-delta')).toEqual([]);
      expect(ClaudeCliError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ keelKind: kind, status, exitCode: 1 });
      expect(classifyError(error).kind).toBe(kind);
      expect(hookKinds).toEqual([kind]);
    },
  );

  it('maps an error_during_execution result without a status to a classified error', async () => {
    const { error } = await runTurn({
      steps: [],
      result: { isError: true, subtype: 'error_during_execution', errors: ['Something broke'] },
    });
    expect(error).toMatchObject({ name: 'ClaudeCliError', keelKind: 'unknown', exitCode: 1 });
    expect((error as Error).message).toContain('error_during_execution');
    expect((error as Error).message).toContain('Something broke');
  });

  it('turns a non-zero exit into an error carrying sanitized stderr, never a secret', async () => {
    const secret = 'sk-ant-test-0123456789abcdef';
    const noisy = `fatal: \u001b[31mboom\u001b[0m key=${secret}\u0007\n${'x'.repeat(5_000)}`;
    const { error } = await runTurn(
      {
        steps: [
          { type: 'stderr', text: noisy },
          { type: 'exit', code: 3 },
        ],
      },
      { ANTHROPIC_API_KEY: secret },
    );
    expect(error).toMatchObject({ name: 'ClaudeCliError', keelKind: 'unknown', exitCode: 3 });
    const cliError = error as ClaudeCliError;
    for (const text of [cliError.message, cliError.stderr ?? '']) {
      expect(text).not.toContain(secret);
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect(text.length).toBeLessThanOrEqual(1_200);
    }
    expect(cliError.stderr).toContain('[redacted]');
    expect(cliError.message).toContain('code 3');
  });

  it('classifies stderr wording when the CLI dies without a result', async () => {
    const { error } = await runTurn({
      steps: [
        { type: 'stderr', text: 'API Error: 529 {"type":"overloaded_error"}' },
        { type: 'exit', code: 1 },
      ],
    });
    expect(error).toMatchObject({ keelKind: 'overloaded' });
  });

  it('reports a missing binary as an error naming the command', async () => {
    const fixture = createCliTestFixture({ turns: [{}] });
    const transport = createClaudeCliTransport({
      command: `${fixture.dir}/no-such-claude`,
      cwd: fixture.cwd,
    });
    const { error } = await drain(transport.stream({ messages: [userTurn('hi')] }));
    expect(error).toMatchObject({ name: 'ClaudeCliError', keelKind: 'unknown' });
    expect((error as Error).message).toContain('ENOENT');
  });
});
