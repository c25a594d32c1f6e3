import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { YOUNG_GENERATION_FLAG } from '../../../apps/gateway/src/bound-heap';
import { type Service, startService } from './service';

/** The built reference gateway (`apps/gateway`), run as users run it. */
export const GATEWAY_CLI = fileURLToPath(
  new URL('../../../apps/gateway/dist/cli.js', import.meta.url),
);

export interface KeelGateway {
  readonly url: string;
  readonly dir: string;
  readonly service: Service;
  /** Stops it (SIGTERM) and removes its folder when this module made it. */
  close(): Promise<void>;
  /** POSTs one message to a session; resolves with the JSON answer. */
  send(sessionId: string, text: string, clientMessageId?: string): Promise<GatewayAnswer>;
}

export interface GatewayAnswer {
  outcome: string;
  text: string;
  model?: string;
  messageId: string;
}

/** A gateway configuration (`apps/gateway/src/config/config-schema.ts`), as written. */
export type GatewayConfig = Record<string, unknown>;

/**
 * A config for the mock provider: one OpenAI-compatible provider per entry of `providers`, each
 * with its profiles' keys; logging at `warn` (turn logs would go to a pipe the bench reads).
 */
export function mockGatewayConfig(options: {
  baseUrl: string;
  sessionsDir: string;
  providers: Array<{ id: string; keys: string[] }>;
  primary: string;
  fallbacks?: string[];
  fsync?: boolean;
  extra?: GatewayConfig;
}): GatewayConfig {
  return {
    server: { host: '127.0.0.1', port: 0, console: false },
    sessionsDir: options.sessionsDir,
    providers: options.providers.map((provider) => ({
      id: provider.id,
      api: 'openai-chat',
      baseUrl: options.baseUrl,
      maxTokens: 64,
      profiles: provider.keys.map((key, index) => ({ id: `key${index + 1}`, apiKey: key })),
    })),
    models: { primary: options.primary, fallbacks: options.fallbacks ?? [] },
    storage: { kind: 'file', fsync: options.fsync ?? true },
    logging: { level: 'warn' },
    ...options.extra,
  };
}

/**
 * The benches' usual gateway: one provider `mock` with one key at `baseUrl` (the mock provider),
 * `model` its primary, sessions in `sessions` under the gateway's folder, fsync on.
 */
export function oneMockGatewayConfig(baseUrl: string, model: string): GatewayConfig {
  return mockGatewayConfig({
    baseUrl,
    sessionsDir: 'sessions',
    providers: [{ id: 'mock', keys: ['sk-bench'] }],
    primary: `mock/${model}`,
  });
}

/**
 * The `node` options the project's start command (`pnpm start`) launches the gateway with: a
 * young generation V8 sizes only at launch; the gateway then bounds the old generation itself
 * (apps/gateway/src/bound-heap.ts). Without them it falls back to `--optimize-for-size`.
 */
export const PNPM_START_NODE_OPTIONS: readonly string[] = [YOUNG_GENERATION_FLAG];

/**
 * Starts the gateway on an ephemeral loopback port with `config` (in `dir`, or a new folder);
 * `nodeOptions` go to its `node` (e.g. `--cpu-prof` to profile it).
 */
export async function startKeelGateway(
  config: GatewayConfig,
  dir?: string,
  nodeOptions: readonly string[] = [],
  /** Another build of the gateway (a worktree's `apps/gateway/dist/cli.js`); default this one. */
  cli: string = GATEWAY_CLI,
): Promise<KeelGateway> {
  if (!existsSync(cli)) {
    throw new Error(`${cli} is missing: run \`pnpm build\` first`);
  }
  const home = dir ?? (await mkdtemp(join(tmpdir(), 'keel-bench-gateway-')));
  const configPath = join(home, 'keel.config.json');
  await writeFile(configPath, JSON.stringify(config, null, 2));
  const service = startService([cli, '--config', configPath, '--port', '0'], {
    cwd: home,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production' },
    nodeOptions,
  });
  const [, url = ''] = await service.waitForLine(
    /"url":"(http:\/\/[^"]+)".*keel gateway listening/,
  );
  return {
    url,
    dir: home,
    service,
    async close() {
      await service.stop();
      if (dir === undefined) await rm(home, { recursive: true, force: true });
    },
    send: (sessionId, text, clientMessageId) => postMessage(url, sessionId, text, clientMessageId),
  };
}

/** `POST /v1/sessions/:sessionId/messages` at the server `url` (Keel's native route), its JSON answer. */
export async function postMessage(
  url: string,
  sessionId: string,
  text: string,
  clientMessageId?: string,
): Promise<GatewayAnswer> {
  const response = await fetch(`${url}/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(clientMessageId === undefined ? { text } : { text, clientMessageId }),
  });
  if (!response.ok)
    throw new Error(`gateway answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as GatewayAnswer;
}
