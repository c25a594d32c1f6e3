// Start-up conduct (issue 18): a provider that cannot work — its SDK not installed, its
// claude-cli command not found — stops the gateway before it listens, naming the provider; and
// the gateway logs the effective settings of every configured model.
import { access, chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewaySandbox, type GatewaySandbox, runSandbox } from './gateway-conduct-sandbox';
import { removeDir, startGateway } from './support/gateway-process';
import { runCli } from './support/run-cli';

let dir: string;
let mock: MockProvider;
let sandbox: GatewaySandbox;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keel-conduct-startup-'));
  mock = await createMockProvider();
  sandbox = await createGatewaySandbox(['openai']);
});
afterAll(async () => {
  await mock?.close();
  await removeDir(dir);
  if (sandbox !== undefined) await removeDir(sandbox.dir);
});

async function configFile(name: string, config: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(config, null, 2));
  return path;
}

const anthropic = () => ({
  id: 'ant',
  api: 'anthropic-messages',
  baseUrl: mock.anthropicBaseUrl,
  profiles: [{ id: 'main', apiKey: 'sk-keeltest-startup-a' }],
});

describe('a provider whose SDK is not installed', () => {
  it('the sandbox really lacks openai, and starts without it when no provider needs it', async () => {
    await expect(access(join(sandbox.dir, 'app', 'node_modules', 'openai'))).rejects.toThrow();
    const path = await configFile('anthropic-only.json', {
      sessionsDir: join(dir, 'sessions-ok'),
      providers: [anthropic()],
      models: { primary: 'ant/claude-x' },
    });
    expect((await runSandbox(sandbox, path)).code).toBe('listening');
  });

  it('stops the gateway at start-up, naming the provider and the package; it never listens', async () => {
    const path = await configFile('needs-openai.json', {
      sessionsDir: join(dir, 'sessions-missing'),
      providers: [
        anthropic(),
        {
          id: 'gpt-fallback',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-startup-o' }],
        },
      ],
      models: { primary: 'ant/claude-x', fallbacks: ['gpt-fallback/gpt-x'] },
    });
    const run = await runSandbox(sandbox, path);
    expect(run.code).toBe(1);
    expect(run.output).toContain('provider "gpt-fallback"');
    expect(run.output).toContain('"openai"');
    expect(run.output).not.toContain('provider "ant"');
    expect(run.output).not.toContain('keel gateway listening');
    expect(run.output).not.toContain('sk-keeltest');
  });
});

describe('a claude-cli provider whose command cannot be run', () => {
  it('stops the gateway at start-up when the command is not on PATH', async () => {
    const path = await configFile('no-claude.json', {
      sessionsDir: join(dir, 'sessions-cli'),
      providers: [
        anthropic(),
        { id: 'claude-code', api: 'claude-cli', command: 'keel-no-such-claude' },
      ],
      models: { primary: 'ant/claude-x', fallbacks: ['claude-code/sonnet'] },
    });
    const run = await runCli(['--config', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('provider "claude-code"');
    expect(run.stderr).toContain('"keel-no-such-claude" is not found on PATH');
    expect(run.stdout).not.toContain('keel gateway listening');
  });

  it('stops it when a command path is not an executable file; starts when it is', async () => {
    const script = join(dir, 'claude-stand-in');
    await writeFile(script, '#!/bin/sh\nexit 0\n');
    const config = (command: string) => ({
      sessionsDir: join(dir, 'sessions-cli-path'),
      providers: [{ id: 'claude-code', api: 'claude-cli', command }],
      models: { primary: 'claude-code/sonnet' },
    });
    const refused = await runCli(['--config', await configFile('not-exec.json', config(script))]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('provider "claude-code"');
    await chmod(script, 0o755);
    const started = await runCli(['--config', await configFile('exec.json', config(script))]);
    expect(started.code).toBe('listening');
  });

  it("looks a bare command up on the provider's own env.PATH when it sets one", async () => {
    const config = (env: Record<string, string>) => ({
      sessionsDir: join(dir, 'sessions-cli-env'),
      providers: [{ id: 'claude-code', api: 'claude-cli', command: 'claude-stand-in', env }],
      models: { primary: 'claude-code/sonnet' },
    });
    const found = await runCli([
      '--config',
      await configFile('env-path.json', config({ PATH: dir })),
    ]);
    expect(found.code).toBe('listening');
    const missing = await runCli(['--config', await configFile('env-none.json', config({}))]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('"claude-stand-in" is not found on PATH');
  });
});

describe('the start-up log', () => {
  it('one line per model of the chain and of models.settings, with its effective settings', async () => {
    const gateway = await startGateway({
      config: {
        sessionsDir: 'sessions',
        providers: [{ ...anthropic(), maxTokens: 2048 }],
        turn: { firstTokenTimeoutMs: 45_000, stallTimeoutMs: 30_000 },
        models: {
          primary: 'ant/claude-x',
          fallbacks: ['ant/claude-y'],
          settings: {
            'ant/claude-y': { contextWindowTokens: 400_000, stallTimeoutMs: 9_000 },
            'ant/claude-z': { maxOutputTokens: 1024, prices: { input: 3, output: 15 } },
          },
        },
      },
    });
    try {
      const lines = gateway.logs.filter((line) => line['msg'] === 'model settings');
      expect(
        lines.map(
          ({
            level,
            model,
            role,
            contextWindowTokens,
            maxOutputTokens,
            firstTokenTimeoutMs,
            stallTimeoutMs,
            prices,
          }) => ({
            level,
            model,
            role,
            contextWindowTokens,
            maxOutputTokens,
            firstTokenTimeoutMs,
            stallTimeoutMs,
            prices,
          }),
        ),
      ).toEqual([
        {
          level: 30,
          model: 'ant/claude-x',
          role: 'primary',
          contextWindowTokens: null,
          maxOutputTokens: 2048,
          firstTokenTimeoutMs: 45_000,
          stallTimeoutMs: 30_000,
          prices: null,
        },
        {
          level: 30,
          model: 'ant/claude-y',
          role: 'fallback',
          contextWindowTokens: 400_000,
          maxOutputTokens: 2048,
          firstTokenTimeoutMs: 45_000,
          stallTimeoutMs: 9_000,
          prices: null,
        },
        {
          level: 30,
          model: 'ant/claude-z',
          role: 'selectable',
          contextWindowTokens: null,
          maxOutputTokens: 1024,
          firstTokenTimeoutMs: 45_000,
          stallTimeoutMs: 30_000,
          prices: { input: 3, output: 15 },
        },
      ]);
    } finally {
      await gateway.stop();
      await removeDir(gateway.dir);
    }
  });
});
