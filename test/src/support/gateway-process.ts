import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

const require = createRequire(import.meta.url);
/** The built gateway's command line (`apps/gateway/dist/cli.js`). */
export const GATEWAY_CLI = join(
  dirname(require.resolve('@keel/gateway/package.json')),
  'dist',
  'cli.js',
);

export interface StartGatewayOptions {
  /** Written to `<dir>/keel.config.json` and passed with `--config`; without it, no config file. */
  config?: Record<string, unknown>;
  /** Merged over a clean environment (no provider keys unless given). */
  env?: Record<string, string>;
  /** Reuse a folder (a restart after `kill -9`); default a new temp folder. */
  dir?: string;
  /** Extra command-line arguments. */
  args?: string[];
}

export interface GatewayProcess {
  readonly url: string;
  readonly dir: string;
  readonly child: ChildProcess;
  /** Every log line (parsed pino JSON, or `{ raw }`) so far. */
  readonly logs: Array<Record<string, unknown>>;
  /** Every byte the process wrote to stdout and stderr, as text. */
  output(): string;
  /** Resolves with the first log line (past or future) that matches. */
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>>;
  /** Sends `signal` and resolves with the exit code (or signal name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
  /** `kill -9`: no cleanup at all. */
  kill(): Promise<void>;
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * Starts the built gateway as a real child process on an ephemeral port and waits until it
 * says it listens. The caller stops it (`stop` or `kill`); `removeDir` cleans its folder.
 */
export async function startGateway(options: StartGatewayOptions = {}): Promise<GatewayProcess> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'keel-gateway-')));
  const args = [GATEWAY_CLI, '--port', '0', ...(options.args ?? [])];
  if (options.config !== undefined) {
    const path = join(dir, 'keel.config.json');
    await writeFile(path, JSON.stringify(options.config, null, 2));
    args.push('--config', path);
  }
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  const waiters: Array<{
    predicate: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }> = [];
  let text = '';
  const onLine = (line: string) => {
    text += `${line}\n`;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      parsed = { raw: line };
    }
    logs.push(parsed);
    for (const waiter of [...waiters]) {
      if (!waiter.predicate(parsed)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(parsed);
    }
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });

  const waitForLog = (predicate: (line: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const found = logs.find(predicate);
      if (found !== undefined) return resolve(found);
      waiters.push({ predicate, resolve });
      void exited.then((code) =>
        reject(new Error(`gateway exited (${code}) before the expected log line:\n${text}`)),
      );
    });

  const listening = await waitForLog(
    (line) =>
      typeof line['url'] === 'string' &&
      line['msg'] !== undefined &&
      String(line['msg']).startsWith('keel gateway listening'),
  );
  const url = String(listening['url']);
  return {
    url,
    dir,
    child,
    logs,
    output: () => text,
    waitForLog,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    fetch: (path, init) => fetch(`${url}${path}`, init),
  };
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** A child environment with only what a gateway needs: no provider keys leak in from the host. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SystemRoot'];
  const env: NodeJS.ProcessEnv = {};
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...extra };
}

/** POSTs a message and returns the JSON answer (and the response). */
export async function sendMessage(
  gateway: Pick<GatewayProcess, 'fetch'>,
  sessionId: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await gateway.fetch(`/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}
