/**
 * Plugins the way a user meets them: the real gateway loads what its config names (packages
 * looked up from the config file's folder, local paths relative to it); a plugin that cannot be
 * used stops start-up naming it; a plugin that throws at run time is isolated — the built-in
 * summarizer takes over from a failing compaction provider, a failing observer leaves the turn
 * alone — and the failure is logged and counted.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  GATEWAY_CLI,
  type GatewayProcess,
  sendMessage,
  startGateway,
} from './support/gateway-process';

/** Config folders live inside this workspace, so that package plugins resolve from its node_modules. */
const workspace = fileURLToPath(new URL('..', import.meta.url));
let scratch: string;
let mock: MockProvider;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  await mkdir(join(workspace, '.scratch'), { recursive: true });
  scratch = await mkdtemp(join(workspace, '.scratch', 'plugins-'));
  mock = await createMockProvider({ defaultReply: () => 'Plain words for the summary.' });
});
afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.stop();
});
afterAll(async () => {
  await mock.close();
  await rm(scratch, { recursive: true, force: true });
});

function config(extra: Record<string, unknown>) {
  return {
    sessionsDir: 'sessions',
    providers: [
      {
        id: 'anthropic',
        api: 'anthropic-messages',
        baseUrl: mock.anthropicBaseUrl,
        profiles: [
          { id: 'k1', apiKey: 'key-1' },
          { id: 'k2', apiKey: 'key-2' },
        ],
      },
      {
        id: 'openai',
        api: 'openai-chat',
        baseUrl: mock.openaiBaseUrl,
        profiles: [{ id: 'o1', apiKey: 'key-o' }],
      },
    ],
    logging: { level: 'info' },
    ...extra,
  };
}

async function folder(name: string): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

async function start(name: string, extra: Record<string, unknown>) {
  const gateway = await startGateway({ config: config(extra), dir: await folder(name) });
  gateways.push(gateway);
  return gateway;
}

async function seed(gateway: GatewayProcess, sessionId: string, model: string) {
  for (const text of [
    'first question about the harbour',
    'second question about the tides',
    'third question about the moon',
  ]) {
    const { body } = await sendMessage(gateway, sessionId, { text });
    expect(body['outcome']).toBe('reply');
  }
  void model;
}

describe('plugins loaded by the gateway', () => {
  it('the extractive plugin (a package) produces the compaction', async () => {
    const gateway = await start('extractive', {
      models: { primary: 'anthropic/plugin-a' },
      plugins: ['@keel/example-compaction-provider-extractive'],
      compaction: { providers: ['extractive'], model: 'openai/summarizer-a', keepRecentTokens: 8 },
    });
    await seed(gateway, 's1', 'plugin-a');
    const response = await gateway.fetch('/v1/sessions/s1/compact', { method: 'POST' });
    expect(await response.json()).toMatchObject({ compacted: true, producerId: 'extractive' });
    expect(mock.requests.some((request) => request.model === 'summarizer-a')).toBe(false);
  });

  it('a failing compaction provider: the built-in summarizer takes over, and the failure is logged and counted', async () => {
    const dir = await folder('failing');
    await writeFile(
      join(dir, 'failing-extractive.mjs'),
      [
        "import { extractivePlugin } from '@keel/example-compaction-provider-extractive';",
        'export default () => {',
        '  const plugin = extractivePlugin();',
        '  const [provider] = plugin.compactionProviders;',
        "  return { ...plugin, name: 'failing-extractive', compactionProviders: [{ ...provider, summarize: async () => { throw new Error('extractor broke'); } }] };",
        '};',
      ].join('\n'),
    );
    const summary = [
      'Goal',
      'Constraints',
      'Decisions',
      'Progress',
      'Open items',
      'Exact identifiers',
    ]
      .map((section) => `## ${section}\nNothing special.`)
      .join('\n');
    mock.enqueue({ behavior: { type: 'ok', text: summary }, match: { model: 'summarizer-b' } });
    const gateway = await startGateway({
      dir,
      config: config({
        models: { primary: 'anthropic/plugin-b' },
        plugins: ['./failing-extractive.mjs'],
        compaction: {
          providers: ['extractive'],
          model: 'openai/summarizer-b',
          keepRecentTokens: 8,
        },
      }),
    });
    gateways.push(gateway);
    await seed(gateway, 's1', 'plugin-b');
    const response = await gateway.fetch('/v1/sessions/s1/compact', { method: 'POST' });
    expect(await response.json()).toMatchObject({ compacted: true, producerId: 'builtin:llm' });
    await gateway.waitForLog(
      (line) =>
        line['msg'] === 'plugin failed (isolated)' && line['plugin'] === 'failing-extractive',
    );
    const metrics = await (await gateway.fetch('/metrics')).text();
    expect(metrics).toMatch(
      /keel_plugin_errors_total\{plugin="failing-extractive",where="compaction-provider:extractive"\} 1/,
    );
  });

  it('the decision-log plugin (an observer with options) writes every decision; a throwing observer leaves the turn alone', async () => {
    const dir = await folder('observer');
    await writeFile(
      join(dir, 'broken-observer.mjs'),
      "export default { specificationVersion: 'v1', name: 'broken-observer', onEvent() { throw new Error('observer bug'); } };\n",
    );
    mock.enqueue(
      { behavior: mockFaults.overloaded(), match: { model: 'plugin-c' } },
      { behavior: mockFaults.overloaded(), match: { model: 'plugin-c' } },
    );
    const gateway = await startGateway({
      dir,
      config: config({
        models: { primary: 'anthropic/plugin-c', fallbacks: ['openai/plugin-c-fallback'] },
        plugins: [
          {
            module: '@keel/example-plugin-decision-log',
            options: { path: 'logs/decisions.jsonl' },
          },
          './broken-observer.mjs',
        ],
      }),
    });
    gateways.push(gateway);
    const { body } = await sendMessage(gateway, 's1', { text: 'hello' });
    expect(body).toMatchObject({ outcome: 'reply', model: 'openai/plugin-c-fallback' });
    const lines = (await readFile(join(dir, 'logs', 'decisions.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { label: string; reason: string });
    expect(lines.map((line) => `${line.label}:${line.reason}`)).toEqual([
      'rotate_profile:overloaded',
      'fallback_model:overloaded',
    ]);
    const metrics = await (await gateway.fetch('/metrics')).text();
    expect(metrics).toMatch(
      /keel_plugin_errors_total\{plugin="broken-observer",where="onEvent"\} [1-9]/,
    );
  });
});

describe('a plugin that cannot be used stops start-up, naming it and the problem', () => {
  const cases: Array<[string, string, unknown[], RegExp]> = [
    ['missing', '', ['@keel/no-such-plugin'], /Plugin "@keel\/no-such-plugin": cannot be found/],
    [
      'wrong shape',
      'export default 42;',
      ['./plugin.mjs'],
      /Plugin ".\/plugin.mjs": .*plugin object/,
    ],
    [
      'wrong version',
      "export default { specificationVersion: 'v2', name: 'future' };",
      ['./plugin.mjs'],
      /Plugin ".\/plugin.mjs": specificationVersion must be "v1", not "v2"/,
    ],
    [
      'throws while loading',
      "throw new Error('boom at import');",
      ['./plugin.mjs'],
      /Plugin ".\/plugin.mjs": failed to load: boom at import/,
    ],
    [
      'duplicate provider id',
      "export default { specificationVersion: 'v1', name: 'copycat', compactionProviders: [{ specificationVersion: 'v1', id: 'extractive', summarize: async () => ({ summary: '' }) }] };",
      ['@keel/example-compaction-provider-extractive', './plugin.mjs'],
      /Plugin "copycat": registers a compaction provider with id "extractive", which "compaction-provider-extractive" already registered/,
    ],
  ];
  it.each(cases)('%s', async (name, source, plugins, message) => {
    const dir = await folder(`bad-${name.replace(/\s+/g, '-')}`);
    if (source !== '') await writeFile(join(dir, 'plugin.mjs'), source);
    await writeFile(
      join(dir, 'keel.config.json'),
      JSON.stringify(config({ models: { primary: 'anthropic/x' }, plugins })),
    );
    const result = spawnSync(
      process.execPath,
      [GATEWAY_CLI, '--config', join(dir, 'keel.config.json'), '--port', '0'],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(message);
  });

  it('compaction.providers naming an id no plugin registers', async () => {
    const dir = await folder('bad-provider-id');
    await writeFile(
      join(dir, 'keel.config.json'),
      JSON.stringify(
        config({ models: { primary: 'anthropic/x' }, compaction: { providers: ['nobody'] } }),
      ),
    );
    const result = spawnSync(
      process.execPath,
      [GATEWAY_CLI, '--config', join(dir, 'keel.config.json'), '--port', '0'],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /Plugin "nobody": compaction.providers.0 names a compaction provider no loaded plugin registers/,
    );
  });
});
