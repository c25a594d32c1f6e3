#!/usr/bin/env node
// Times the root README's first command the way a newcomer meets it: a fresh `git clone` of this
// repository's HEAD, an empty npm cache and global prefix (for `npm i -g pnpm@10`), an empty pnpm
// store and metadata cache, then the line itself, until the gateway it starts answers a demo
// message over HTTP. Prints each run's phases and the spread; exits non-zero when the command
// fails (it never fails on time: `.ci/run` uses one run as the first command's smoke test).
//
//   node tools/first-minute/measure-first-command.mjs [--runs 3] [--repo <a clone to measure>]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LIMIT_MS = 15 * 60_000; // only catches a hang

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, repo: { type: 'string' } },
});
const runs = Number(values.runs);
const ROOT = values.repo ?? HERE_ROOT;

/** The README's first command, without its comment. */
function firstCommand(readme) {
  const block = readme.split('```sh\n')[1]?.split('\n```')[0] ?? '';
  const line = block
    .split('\n')[0]
    ?.replace(/\s+#.*$/, '')
    .trim();
  if (!line?.includes('pnpm start'))
    throw new Error('README.md does not open with the first command');
  return line;
}

/** Phases, by the first output line that marks each one's end. */
const PHASES = [
  ['pnpm installed', /added \d+ packages?|changed \d+ packages?|up to date/],
  ['dependencies installed', /^Done in /],
  ['built', /^built without type declarations|Tasks: +\d+ successful/],
  ['listening', /"console":"http:\/\/127\.0\.0\.1:\d+\/console"/],
];

async function answer(url) {
  const response = await fetch(`${url}/v1/sessions/first-minute/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'What time is it?' }),
  });
  const body = await response.json();
  if (body.outcome !== 'reply') throw new Error(`unexpected answer: ${JSON.stringify(body)}`);
  return body.text;
}

async function measureOnce(scratch) {
  const clone = join(scratch, 'keel');
  const cloned = spawnSync('git', ['clone', '--quiet', ROOT, clone], { stdio: 'inherit' });
  if (cloned.status !== 0) throw new Error('git clone failed');
  const command = firstCommand(readFileSync(join(clone, 'README.md'), 'utf8'));
  const prefix = join(scratch, 'npm-global');
  const env = {
    ...process.env,
    PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
    npm_config_prefix: prefix,
    npm_config_cache: join(scratch, 'npm-cache'),
    npm_config_store_dir: join(scratch, 'pnpm-store'),
    npm_config_cache_dir: join(scratch, 'pnpm-cache'),
    npm_config_update_notifier: 'false',
    KEEL_PORT: '0', // a free port: others may serve 7420 here
    TURBO_TELEMETRY_DISABLED: '1',
  };
  const started = performance.now();
  const seconds = () => Number(((performance.now() - started) / 1000).toFixed(1));
  const child = spawn('bash', ['-euo', 'pipefail', '-c', command], {
    cwd: clone,
    env,
    detached: true, // its own process group, stopped as a whole below
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const phases = {};
  const output = [];
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no gateway after 15 minutes')), LIMIT_MS);
      const onLine = (line) => {
        output.push(line);
        for (const [phase, pattern] of PHASES) {
          if (phases[phase] === undefined && pattern.test(line)) phases[phase] = seconds();
        }
        const match = /"console":"(http:\/\/127\.0\.0\.1:\d+)\/console"/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      let rest = '';
      const onData = (chunk) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) onLine(line.trim());
      };
      child.stdout.setEncoding('utf8').on('data', onData);
      child.stderr.setEncoding('utf8').on('data', onData);
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the first command exited (${code}):\n${output.slice(-30).join('\n')}`));
      });
    });
    const text = await answer(url);
    phases['answered'] = seconds();
    return { command, phases, text };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
  }
}

const totals = [];
for (let run = 1; run <= runs; run += 1) {
  const scratch = mkdtempSync(join(tmpdir(), 'keel-first-minute-'));
  try {
    const { command, phases, text } = await measureOnce(scratch);
    if (run === 1) process.stdout.write(`$ ${command}\n`);
    const steps = Object.entries(phases).map(([phase, at]) => `${phase} ${at} s`);
    process.stdout.write(`run ${run}: ${steps.join(', ')} — "${text}"\n`);
    totals.push(phases['answered']);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
const sorted = [...totals].sort((a, b) => a - b);
process.stdout.write(
  `first command to a demo answer, empty stores: ${sorted.join(' s, ')} s (min ${sorted[0]} s, median ${sorted[Math.floor(sorted.length / 2)]} s, max ${sorted.at(-1)} s)\n`,
);
