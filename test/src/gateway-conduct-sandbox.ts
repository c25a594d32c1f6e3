// A copy of the built gateway whose node_modules lacks chosen packages, so that a missing SDK is
// met as a deployment meets it: Node's own module resolution finds nothing. Nothing is mocked:
// every other package is the workspace's own, linked.
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const GATEWAY_DIR = dirname(require.resolve('@keel/gateway/package.json'));

/** A gateway install at `dir` (its `dist` copied, its dependencies linked) without `absent`. */
export interface GatewaySandbox {
  readonly dir: string;
  readonly cli: string;
}

export async function createGatewaySandbox(absent: readonly string[]): Promise<GatewaySandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-sandbox-'));
  const app = join(dir, 'app');
  await mkdir(join(app, 'node_modules'), { recursive: true });
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({ name: 'keel-gateway-sandbox', private: true, type: 'module' }),
  );
  await cp(join(GATEWAY_DIR, 'dist'), join(app, 'dist'), { recursive: true });
  const source = join(GATEWAY_DIR, 'node_modules');
  for (const entry of await readdir(source)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@')
      ? (await readdir(join(source, entry))).map((name) => `${entry}/${name}`)
      : [entry];
    for (const name of names) {
      if (absent.includes(name)) continue;
      await mkdir(dirname(join(app, 'node_modules', name)), { recursive: true });
      await symlink(await realpath(join(source, name)), join(app, 'node_modules', name));
    }
  }
  return { dir, cli: join(app, 'dist', 'cli.js') };
}

export interface SandboxRun {
  /** The exit code, or `'listening'` when the gateway started (it is then stopped). */
  code: number | string;
  output: string;
}

/** Runs the sandboxed gateway until it exits, or stops it once it listens. */
export function runSandbox(sandbox: GatewaySandbox, configPath: string): Promise<SandboxRun> {
  const child = spawn(process.execPath, [sandbox.cli, '--port', '0', '--config', configPath], {
    cwd: sandbox.dir,
    env: { PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let listening = false;
  const read = (chunk: string) => {
    output += chunk;
    if (!listening && output.includes('keel gateway listening')) {
      listening = true;
      child.kill('SIGTERM');
    }
  };
  child.stdout.setEncoding('utf8').on('data', read);
  child.stderr.setEncoding('utf8').on('data', read);
  return new Promise((resolve) => {
    child.once('close', (code, signal) =>
      resolve({ code: listening ? 'listening' : (code ?? signal ?? 'unknown'), output }),
    );
  });
}
