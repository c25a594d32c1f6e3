/**
 * The real Claude Code CLI (@anthropic-ai/claude-code 2.1.332) with `ANTHROPIC_BASE_URL` at the
 * built gateway's Anthropic-compatible endpoint, offline: the gateway's provider is the mock,
 * scripted so that the model calls the Bash tool, Claude Code runs it and sends the tool_result
 * back through the gateway, and the model answers — from an Anthropic-wire and an OpenAI-wire upstream.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

const CLAUDE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'node_modules',
  '.bin',
  'claude',
);
const TOKEN = 'keel-compat-claude-code';
const UPSTREAM_MODEL = 'claude-keel-compat-cli';
const OPENAI_UPSTREAM_MODEL = 'gpt-keel-compat-cli';

let mock: MockProvider;
let gateway: GatewayProcess;
let root: string;

beforeAll(async () => {
  mock = await createMockProvider();
  root = mkdtempSync(join(tmpdir(), 'keel-compat-cc-'));
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      server: { authToken: TOKEN },
      providers: [
        {
          id: 'cc',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-cc-upstream' }],
        },
        {
          id: 'cco',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-cco-upstream' }],
        },
      ],
      models: { primary: `cc/${UPSTREAM_MODEL}` },
      routes: {
        'keel-cli': { primary: `cc/${UPSTREAM_MODEL}` },
        'keel-cli-openai': { primary: `cco/${OPENAI_UPSTREAM_MODEL}` },
      },
      retry: { maxRetries: 0 },
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway) await removeDir(gateway.dir);
  await mock?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Runs `claude -p` to its end; its stream-json lines, parsed. */
async function runClaude(
  prompt: string,
  route = 'keel-cli',
): Promise<{ code: number | null; lines: Array<Record<string, unknown>>; output: string }> {
  const home = mkdtempSync(join(root, 'home-'));
  const cwd = mkdtempSync(join(root, 'work-'));
  const child = spawn(
    CLAUDE,
    [
      '-p',
      prompt,
      '--output-format',
      'stream-json',
      '--verbose',
      '--allowedTools',
      'Bash',
      '--model',
      route,
    ],
    {
      cwd,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: home,
        ANTHROPIC_BASE_URL: gateway.url,
        ANTHROPIC_API_KEY: TOKEN,
        ANTHROPIC_SMALL_FAST_MODEL: route,
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const lines = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, lines, output };
}

describe('Claude Code through the Anthropic-compatible endpoint', () => {
  it('runs a Bash tool call the model asked for and answers with its result', async () => {
    mock.enqueue(
      {
        behavior: {
          type: 'ok',
          toolCalls: [
            {
              id: 'toolu_keel_cc_1',
              name: 'Bash',
              input: { command: 'echo keel-compat-ok', description: 'Print a marker' },
            },
          ],
        },
        match: { model: UPSTREAM_MODEL },
      },
      {
        behavior: { type: 'ok', text: 'The command printed keel-compat-ok.' },
        match: { model: UPSTREAM_MODEL },
      },
    );
    const { code, lines, output } = await runClaude(
      'Run echo keel-compat-ok and tell me what it printed.',
    );
    expect(code, output).toBe(0);
    const result = lines.find((line) => line['type'] === 'result');
    expect(result, output).toMatchObject({
      subtype: 'success',
      is_error: false,
      result: 'The command printed keel-compat-ok.',
    });
    // Claude Code reads the usage from message_delta (a live stream's message_start has none yet).
    const usage = (result?.['usage'] ?? {}) as { input_tokens?: number; output_tokens?: number };
    expect(usage.input_tokens ?? 0, JSON.stringify(result)).toBeGreaterThan(0);
    expect(usage.output_tokens ?? 0).toBeGreaterThan(0);
    const assistant = lines.filter((line) => line['type'] === 'assistant');
    expect(JSON.stringify(assistant)).toContain('"id":"toolu_keel_cc_1"');
    // Every answer names the model that answered (the route's primary), as the gateway sent it.
    expect((assistant[0]?.['message'] as { model?: string } | undefined)?.model).toBe(
      `cc/${UPSTREAM_MODEL}`,
    );

    // The provider behind the gateway got the tool's real output, paired with the model's id.
    const upstream = mock.requests.filter(
      (request) => request.api === 'anthropic-messages' && request.model === UPSTREAM_MODEL,
    );
    expect(upstream).toHaveLength(2);
    const sent = (upstream[1]?.messages ?? []) as Array<{ role: string; content: unknown }>;
    const lastUser = sent.at(-1);
    expect(lastUser?.role).toBe('user');
    expect(lastUser?.content).toEqual([
      expect.objectContaining({
        type: 'tool_result',
        tool_use_id: 'toolu_keel_cc_1',
        content: expect.stringContaining('keel-compat-ok'),
      }),
    ]);
    // Claude Code's key reached the gateway only: the provider saw the gateway's own key.
    expect(upstream.every((request) => request.apiKey === 'sk-cc-upstream')).toBe(true);
  }, 120_000);

  it('works the same over an OpenAI-wire upstream: the tool call and its result translated, ids kept', async () => {
    mock.enqueue(
      {
        behavior: {
          type: 'ok',
          toolCalls: [
            {
              id: 'call_keel_cc_2',
              name: 'Bash',
              input: { command: 'echo keel-compat-openai', description: 'Print a marker' },
            },
          ],
        },
        match: { model: OPENAI_UPSTREAM_MODEL },
      },
      {
        behavior: { type: 'ok', text: 'It printed keel-compat-openai.' },
        match: { model: OPENAI_UPSTREAM_MODEL },
      },
    );
    const { code, lines, output } = await runClaude(
      'Run echo keel-compat-openai and tell me what it printed.',
      'keel-cli-openai',
    );
    expect(code, output).toBe(0);
    expect(
      lines.find((line) => line['type'] === 'result'),
      output,
    ).toMatchObject({
      subtype: 'success',
      result: 'It printed keel-compat-openai.',
    });
    const upstream = mock.requests.filter(
      (request) => request.api === 'openai-chat' && request.model === OPENAI_UPSTREAM_MODEL,
    );
    expect(upstream).toHaveLength(2);
    const sent = (upstream[1]?.messages ?? []) as Array<Record<string, unknown>>;
    expect(sent).toContainEqual(
      expect.objectContaining({
        role: 'tool',
        tool_call_id: 'call_keel_cc_2',
        content: expect.stringContaining('keel-compat-openai'),
      }),
    );
  }, 120_000);
});
