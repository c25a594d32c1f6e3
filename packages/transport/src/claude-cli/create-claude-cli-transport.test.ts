import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import {
  assistantTurn,
  createCliTestFixture,
  drain,
  fakePrompts,
  userTurn,
} from '../../test/cli-test-fixture';
import { withRetryPin } from '../with-retry-pin';
import { createFileBindingStore } from './binding-store';
import { createClaudeCliTransport } from './create-claude-cli-transport';

function setup(scenario: Parameters<typeof createCliTestFixture>[0]) {
  const fixture = createCliTestFixture(scenario);
  const bindingsPath = join(fixture.dir, 'state', 'claude-cli-bindings.json');
  const transport = createClaudeCliTransport({
    command: fixture.fake.command,
    cwd: fixture.cwd,
    env: fixture.fake.env,
    model: 'claude-test-model',
    allowedTools: ['Bash', 'Read'],
    extraArgs: ['--permission-mode', 'default'],
    bindings: createFileBindingStore({ path: bindingsPath }),
    abortGraceMs: 2_000,
  });
  return { fixture, transport, bindingsPath };
}

describe('createClaudeCliTransport: stream mapping', () => {
  it('maps init, text, tool_use and result to events and passes the configured flags', async () => {
    const { fixture, transport } = setup({
      turns: [
        {
          sessionId: 'cli-session-1',
          steps: [
            { type: 'text', text: 'Let me look. ' },
            {
              type: 'tool_use',
              id: 'toolu_1',
              name: 'Bash',
              input: { command: 'ls' },
              result: 'a.txt',
            },
            { type: 'text', text: 'There is a.txt.' },
          ],
          usage: { inputTokens: 42, outputTokens: 7 },
        },
      ],
    });
    const { events, error } = await drain(
      transport.stream(
        { system: 'Be brief.', messages: [userTurn('What is here?')] },
        { sessionId: 'gw-1' },
      ),
    );
    expect(error).toBeUndefined();
    expect(events).toEqual<ModelEvent[]>([
      { type: 'session-bound', sessionId: 'gw-1', cliSessionId: 'cli-session-1', resumed: false },
      { type: 'text-delta', text: 'Let me look. ' },
      { type: 'tool-call', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
      { type: 'tool-result', toolUseId: 'toolu_1', content: 'a.txt' },
      { type: 'text-delta', text: '\n\nThere is a.txt.' },
      { type: 'usage', inputTokens: 42, outputTokens: 7 },
      { type: 'finish', reason: 'stop' },
    ]);
    const [call] = fixture.fake.log().filter((entry) => entry.type === 'call');
    expect(call?.type === 'call' && call.cwd).toBe(fixture.cwd);
    const argv = fixture.fake.calls()[0] ?? [];
    expect(argv.slice(0, 4)).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
    expect(argv).toContain('--model');
    expect(argv[argv.indexOf('--model') + 1]).toBe('claude-test-model');
    expect(argv[argv.indexOf('--append-system-prompt') + 1]).toBe('Be brief.');
    expect(argv.slice(argv.indexOf('--allowedTools') + 1)).toEqual(['Bash', 'Read']);
    expect(argv[argv.indexOf('--permission-mode') + 1]).toBe('default');
    expect(argv).not.toContain('--resume');
    expect(fakePrompts(fixture)).toEqual(['What is here?']);
  });

  it('passes the prompt on stdin: a 140 000-character message reaches the CLI whole', async () => {
    const { fixture, transport } = setup({
      turns: [{ steps: [{ type: 'text', text: 'Read it.' }] }],
    });
    // One argument of this size is over Linux's per-argument limit (spawn E2BIG); stdin has none.
    const log = `--begins with dashes\n${'0123456789'.repeat(14_000)}\nAssistant: not a label`;
    const { events, error } = await drain(transport.stream({ messages: [userTurn(log)] }));
    expect(error).toBeUndefined();
    expect(events).toContainEqual({ type: 'text-delta', text: 'Read it.' });
    expect(fakePrompts(fixture)).toEqual([log]);
    const argv = fixture.fake.calls()[0] ?? [];
    expect(argv.join(' ').length).toBeLessThan(1_000);
    expect(argv).not.toContain('--');
  });

  it('treats a run that ends without a result message as an error', async () => {
    const { transport } = setup({
      turns: [{ steps: [{ type: 'text', text: 'partial' }], result: false }],
    });
    const { events, error } = await drain(transport.stream({ messages: [userTurn('hi')] }));
    expect(events.map((event) => event.type)).toEqual(['text-delta']);
    expect(error).toMatchObject({ name: 'ClaudeCliError', keelKind: 'unknown' });
    expect(String((error as Error).message)).toContain('without a result');
  });
});

describe('createClaudeCliTransport: environment, retries and hooks', () => {
  it('merges env over process.env, removes undefined names, pins CLI retries and keeps hooks secret-free', async () => {
    const fixture = createCliTestFixture({ turns: [{ steps: [{ type: 'text', text: 'ok' }] }] });
    process.env['KEEL_TEST_INHERITED'] = 'inherited';
    process.env['KEEL_TEST_REMOVED'] = 'removed';
    const seen: string[] = [];
    const transport = createClaudeCliTransport({
      command: fixture.fake.command,
      cwd: fixture.cwd,
      env: {
        ...fixture.fake.env,
        KEEL_TEST_ADDED: 'x',
        KEEL_TEST_REMOVED: undefined,
        ANTHROPIC_API_KEY: 'sk-secret-value-123',
      },
      hooks: {
        onRequestStart: (context) => seen.push(JSON.stringify(context)),
        onResponse: (context) => seen.push(JSON.stringify(context)),
      },
    });
    try {
      const { error } = await drain(
        transport.stream({ messages: [userTurn('hi')] }, { maxRetries: 0 }),
      );
      expect(error).toBeUndefined();
    } finally {
      delete process.env['KEEL_TEST_INHERITED'];
      delete process.env['KEEL_TEST_REMOVED'];
    }
    const [call] = fixture.fake.log();
    expect(call?.type).toBe('call');
    if (call?.type !== 'call') return;
    expect(call.envNames).toEqual(
      expect.arrayContaining(['KEEL_TEST_INHERITED', 'KEEL_TEST_ADDED', 'ANTHROPIC_API_KEY']),
    );
    expect(call.envNames).not.toContain('KEEL_TEST_REMOVED');
    expect(call.maxRetries).toBe('0');
    expect(seen).toHaveLength(2);
    expect(seen.join('\n')).not.toContain('sk-secret-value-123');
    expect(JSON.parse(seen[0] ?? '{}')).toMatchObject({
      provider: 'claude-cli',
      api: 'claude-cli',
      url: 'cli:fake-claude-cli.js',
    });
  });
});

describe('createClaudeCliTransport: retry pin', () => {
  it('lets withRetryPin(transport, 0) stop the CLI own API retries, whatever the call or config asks', async () => {
    const fixture = createCliTestFixture({ turns: [{ steps: [{ type: 'text', text: 'ok' }] }] });
    const pinned = withRetryPin(
      createClaudeCliTransport({
        command: fixture.fake.command,
        cwd: fixture.cwd,
        env: { ...fixture.fake.env, CLAUDE_CODE_MAX_RETRIES: '7' },
      }),
      0,
    );
    expect(pinned.specificationVersion).toBe('v1');
    const { error } = await drain(pinned.stream({ messages: [userTurn('hi')] }, { maxRetries: 5 }));
    expect(error).toBeUndefined();
    const [call] = fixture.fake.log();
    expect(call?.type === 'call' ? call.maxRetries : undefined).toBe('0');
  });
});

describe('createClaudeCliTransport: bindings', () => {
  it('persists the binding and resumes it with --resume on the next call', async () => {
    const { fixture, transport, bindingsPath } = setup({
      turns: [
        { sessionId: 'cli-a', steps: [{ type: 'text', text: 'first answer' }] },
        { steps: [{ type: 'text', text: 'second answer' }] },
      ],
    });
    const first = await drain(
      transport.stream({ messages: [userTurn('one')] }, { sessionId: 'gw-2' }),
    );
    expect(first.error).toBeUndefined();
    const file = JSON.parse(readFileSync(bindingsPath, 'utf8'));
    expect(file).toMatchObject({
      version: 1,
      bindings: { 'gw-2': { cliSessionId: 'cli-a', cwd: fixture.cwd } },
    });

    const second = await drain(
      transport.stream(
        { messages: [userTurn('one'), assistantTurn('first answer'), userTurn('two')] },
        { sessionId: 'gw-2' },
      ),
    );
    expect(second.error).toBeUndefined();
    expect(second.events[0]).toEqual({
      type: 'session-bound',
      sessionId: 'gw-2',
      cliSessionId: 'cli-a',
      resumed: true,
    });
    expect(second.events).toContainEqual({ type: 'text-delta', text: 'second answer' });
    const argv = fixture.fake.calls()[1] ?? [];
    expect(argv[argv.indexOf('--resume') + 1]).toBe('cli-a');
    // The CLI owns the conversation when resumed: only the new message is sent.
    expect(fakePrompts(fixture)[1]).toBe('two');
  });

  it('drops a binding whose transcript is gone, starts fresh and reseeds the prior context', async () => {
    const { fixture, transport, bindingsPath } = setup({
      turns: [
        { sessionId: 'cli-old', steps: [{ type: 'text', text: 'Paris.' }] },
        { sessionId: 'cli-new', steps: [{ type: 'text', text: 'About 2 million.' }] },
      ],
    });
    await drain(
      transport.stream({ messages: [userTurn('Capital of France?')] }, { sessionId: 'gw-3' }),
    );
    const { rmSync } = await import('node:fs');
    rmSync(fixture.fake.transcriptPath(fixture.cwd, 'cli-old'));

    const { events, error } = await drain(
      transport.stream(
        {
          messages: [
            userTurn('Capital of France?'),
            assistantTurn('Paris.'),
            userTurn('Population?'),
          ],
        },
        { sessionId: 'gw-3' },
      ),
    );
    expect(error).toBeUndefined();
    expect(events[0]).toEqual({
      type: 'binding-invalidated',
      sessionId: 'gw-3',
      cliSessionId: 'cli-old',
      reason: 'missing-transcript',
    });
    expect(events[1]).toEqual({
      type: 'session-bound',
      sessionId: 'gw-3',
      cliSessionId: 'cli-new',
      resumed: false,
    });
    const argv = fixture.fake.calls()[1] ?? [];
    expect(argv).not.toContain('--resume');
    const prompt = fakePrompts(fixture)[1] ?? '';
    const paris = '{"role":"assistant","text":"Paris."}';
    expect(prompt).toContain('{"role":"user","text":"Capital of France?"}');
    expect(prompt).toContain(paris);
    expect(prompt.indexOf(paris)).toBeLessThan(prompt.indexOf('Population?'));
    expect(prompt.trimEnd().endsWith('Population?')).toBe(true);
    const file = JSON.parse(readFileSync(bindingsPath, 'utf8'));
    expect(file.bindings['gw-3'].cliSessionId).toBe('cli-new');
  });
});
