import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultMockReply } from './default-mock-reply';
import { mockFaults } from './mock-faults';
import { createMockProvider } from './mock-provider';
import type { MockProvider } from './mock-provider-types';

/** The real Claude Code CLI (devDependency `@anthropic-ai/claude-code`). */
const claudeBin = fileURLToPath(new URL('../node_modules/.bin/claude', import.meta.url));

/**
 * The models of the CLI's main turn. Scripted answers match them, so a side request the CLI may
 * make (a small model for a title or a check) can never take a turn's scripted answer.
 */
const mainModel = /opus|sonnet/;

let provider: MockProvider;
let home: string;
let cwd: string;

beforeEach(async () => {
  provider = await createMockProvider();
  home = await mkdtemp(join(tmpdir(), 'keel-claude-home-'));
  cwd = await mkdtemp(join(tmpdir(), 'keel-claude-cwd-'));
});
afterEach(async () => {
  await provider.close();
  await rm(home, { recursive: true, force: true });
  await rm(cwd, { recursive: true, force: true });
});

interface CliRun {
  code: number | null;
  events: Array<Record<string, unknown>>;
  stderr: string;
}

function runClaude(prompt: string, env: Record<string, string> = {}): Promise<CliRun> {
  const child = spawn(
    claudeBin,
    ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash'],
    {
      cwd,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: home,
        ANTHROPIC_BASE_URL: provider.anthropicBaseUrl,
        ANTHROPIC_API_KEY: 'test',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const events = stdout
        .split('\n')
        .filter((line) => line.trim().length > 0)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ code, events, stderr });
    });
  });
}

function resultOf(run: CliRun): Record<string, unknown> | undefined {
  return run.events.find((event) => event['type'] === 'result');
}

describe('the real Claude Code CLI against the mock provider', () => {
  it('prints the deterministic default reply as its result', { timeout: 90_000 }, async () => {
    const run = await runClaude('hi');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const expected = defaultMockReply({ messages: [{ role: 'user', content: 'hi' }] });
    expect(resultOf(run)).toMatchObject({ subtype: 'success', is_error: false, result: expected });
    const modelCalls = provider.requests.filter((request) => request.api === 'anthropic-messages');
    expect(modelCalls).toHaveLength(1);
    expect(modelCalls[0]).toMatchObject({
      method: 'POST',
      path: '/v1/messages?beta=true',
      apiKey: 'test',
      stream: true,
      behavior: 'ok',
    });
    expect(modelCalls[0]?.headers['anthropic-version']).toBe('2023-06-01');
    expect(modelCalls[0]?.headers['user-agent']).toMatch(/^claude-cli\//);
  });

  it('runs a scripted Bash tool_use and finishes with the scripted text', {
    timeout: 90_000,
  }, async () => {
    provider.enqueue(
      {
        behavior: {
          type: 'ok',
          toolCalls: [{ name: 'Bash', input: { command: 'echo hi', description: 'x' } }],
        },
        match: { model: mainModel },
      },
      {
        behavior: { type: 'ok', text: 'The command printed hi.' },
        match: { model: mainModel },
      },
    );
    const run = await runClaude('run echo hi');
    expect(run.code).toBe(0);
    expect(provider.pending()).toBe(0);
    const toolResults = run.events.filter((event) => event['type'] === 'user');
    expect(JSON.stringify(toolResults)).toContain('"tool_use_id":"toolu_mock_1"');
    expect(resultOf(run)).toMatchObject({ is_error: false, result: 'The command printed hi.' });
    const second = provider.requests.filter((request) => request.api === 'anthropic-messages')[1];
    const messages = second?.messages as Array<{ role: string; content: unknown }>;
    expect(messages.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_mock_1', content: 'hi' }],
    });
  });

  it('reports an overloaded model as an API error result', { timeout: 90_000 }, async () => {
    provider.enqueue({ behavior: mockFaults.overloaded(), match: { model: mainModel } });
    const run = await runClaude('hi', { CLAUDE_CODE_MAX_RETRIES: '0' });
    expect(run.code).toBe(1);
    expect(resultOf(run)).toMatchObject({ is_error: true, api_error_status: 529 });
  });

  it('falls back to a non-streaming request after an in-stream error', {
    timeout: 90_000,
  }, async () => {
    provider.enqueue({
      behavior: { type: 'stream-error', afterChunks: 1, errorType: 'overloaded_error' },
      match: { model: mainModel },
    });
    const run = await runClaude('hi', { CLAUDE_CODE_MAX_RETRIES: '0' });
    expect(run.code).toBe(0);
    const modelCalls = provider.requests.filter((request) => request.api === 'anthropic-messages');
    expect(modelCalls.map((request) => [request.stream, request.behavior])).toEqual([
      [true, 'stream-error'],
      [false, 'ok'],
    ]);
    expect(resultOf(run)).toMatchObject({ is_error: false });
  });
});
