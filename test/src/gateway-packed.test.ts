/**
 * `@keel/gateway` as a user meets it outside the repository: the gateway and the `@keel/*`
 * packages it runs on `pnpm pack`ed, installed with plain `npm` in an empty folder (the tarballs,
 * nothing else named), then `node_modules/.bin/keel-gateway` started with no configuration — it
 * serves the demo model over HTTP and its console, and stops cleanly on SIGTERM. The install holds
 * no test runner: `@keel/testing`'s `vitest` peer is optional, and nothing else brings one.
 *
 * npm takes seconds when idle and minutes on a loaded 2-core machine: the limits only catch a
 * hang; the gateway's readiness is its own start-up line, never a timer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsumerProject,
  createConsumerProject,
  installedPackages,
  npmInstall,
} from './support/consumer-project';
import { type PackedPackage, packPackages } from './support/pack-workspace';
import { cleanEnvironment, runChecked } from './support/run-command';
import { keelClosure, workspacePackages } from './support/workspace-packages';

const LIMIT_MS = 600_000;
const GATEWAY = '@keel/gateway';
/** Test runners and their parts: none may reach a production install of the gateway. */
const TEST_TOOLING = /^(vitest|@vitest\/.*|vite|playwright|playwright-core|@playwright\/.*|jest)$/;

const workspace = workspacePackages();
const keelPackages = keelClosure(
  GATEWAY,
  workspace.filter((entry) => entry.name.startsWith('@keel/')),
);

let root: string;
let packed: Map<string, PackedPackage>;
let project: ConsumerProject;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'keel-gateway-packed-')));
  packed = await packPackages(
    workspace.filter((entry) => keelPackages.includes(entry.name)),
    join(root, 'tarballs'),
  );
  project = createConsumerProject(join(root, 'project'));
  await npmInstall(
    project,
    [...packed.values()].map((entry) => entry.tarball),
  );
}, LIMIT_MS);

afterAll(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
}, LIMIT_MS);

describe('the @keel/gateway tarball', () => {
  let files: string[];

  beforeAll(async () => {
    const tarball = packed.get(GATEWAY)?.tarball ?? '';
    const { stdout } = await runChecked('tar', ['-tzf', tarball], { cwd: root });
    files = stdout
      .trim()
      .split('\n')
      .map((line) => line.replace(/^package\//, ''));
  }, LIMIT_MS);

  it('holds the bin, the built gateway and console, README and LICENSE; no sources or tests', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/keel-gateway.js',
        'dist/cli.js',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/console/console.js',
        'dist/console/console.css',
        'README.md',
        'LICENSE',
        'package.json',
      ]),
    );
    const unwanted = files.filter((file) =>
      /^(src|test|console|node_modules)\/|\.test\.|tsconfig|tsup|vitest/.test(file),
    );
    expect(unwanted).toEqual([]);
  });
});

describe('@keel/gateway installed alone with npm', () => {
  it('holds its @keel packages from the tarballs and no test runner', () => {
    const installed = installedPackages(project);
    const keel = installed.filter((entry) => entry.name.startsWith('@keel/'));
    expect(keel.map((entry) => entry.name).sort()).toEqual(keelPackages);
    for (const entry of keel) expect(entry.resolved, entry.name).toMatch(/^file:.*\.tgz$/);
    expect(installed.map((entry) => entry.name).filter((name) => TEST_TOOLING.test(name))).toEqual(
      [],
    );
    expect(existsSync(join(project.directory, 'node_modules', 'vitest'))).toBe(false);
  });

  it('serves the demo model and its console from node_modules/.bin/keel-gateway, and stops on SIGTERM', {
    timeout: LIMIT_MS,
  }, async () => {
    const bin = join(project.directory, 'node_modules', '.bin', 'keel-gateway');
    const sessions = join(root, 'sessions');
    // The bin itself, not npx: a signal reaches the gateway, not a wrapper that may not forward it.
    const child = spawn(bin, ['--port', '0', '--log-format', 'json'], {
      cwd: project.directory,
      env: { ...cleanEnvironment(), KEEL_SESSIONS_DIR: sessions },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | string>((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
    );
    try {
      const url = await listeningUrl(child, exited);
      const answer = await fetch(`${url}/v1/sessions/packed/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'What time is it?' }),
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({
        outcome: 'reply',
        text: expect.stringMatching(/^The current time is \d{4}-/),
        model: 'demo/keel-demo',
      });
      const consolePage = await fetch(`${url}/console`);
      expect(consolePage.status).toBe(200);
      expect(await consolePage.text()).toContain('/console/console.js');
      const script = await fetch(`${url}/console/console.js`);
      expect(script.status).toBe(200);
      expect((await script.text()).length).toBeGreaterThan(1000);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

describe('@keel/gateway started the way its README says: npx keel-gateway', () => {
  it('serves the demo model through npx; the whole process group stops on SIGTERM', {
    timeout: LIMIT_MS,
  }, async () => {
    const sessions = join(root, 'sessions-npx');
    // npx runs the local bin from node_modules/.bin. It does not forward SIGTERM to the gateway, so
    // the test starts it in a process group of its own and signals the group, as a terminal's
    // Ctrl-C or a process manager does.
    const child = spawn('npx', ['keel-gateway', '--port', '0', '--log-format', 'json'], {
      cwd: project.directory,
      env: {
        ...cleanEnvironment(),
        KEEL_SESSIONS_DIR: sessions,
        npm_config_cache: join(root, 'npm-cache-npx'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const exited = new Promise<number | string>((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
    );
    let url: string | undefined;
    try {
      url = await listeningUrl(child, exited);
      const answer = await fetch(`${url}/v1/sessions/npx/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'What time is it?' }),
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ outcome: 'reply', model: 'demo/keel-demo' });
    } finally {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
        process.kill(-child.pid, 'SIGTERM');
    }
    await exited;
    // The gateway itself stopped with its group: nothing answers at its address any more.
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });
});

/** The URL from the gateway's start-up line; rejects with its output if it exits first. */
function listeningUrl(child: ChildProcess, exited: Promise<number | string>): Promise<string> {
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const onLine = (line: string) => {
      output.push(line);
      const match = /"console":"(http:\/\/127\.0\.0\.1:\d+)\/console"/.exec(line);
      if (match?.[1] !== undefined) resolve(match[1]);
    };
    if (child.stdout) createInterface({ input: child.stdout }).on('line', onLine);
    if (child.stderr) createInterface({ input: child.stderr }).on('line', onLine);
    void exited.then((code) =>
      reject(new Error(`keel-gateway exited (${code}) before listening:\n${output.join('\n')}`)),
    );
  });
}
