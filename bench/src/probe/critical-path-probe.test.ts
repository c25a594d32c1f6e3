// The critical-path probe (critical-path-probe.cjs) preloaded into a small real server: each
// POST …/messages is timed from its arrival to the upstream request, through the upstream call, to
// its answer, and the `fs` calls are put in the part they happened in (before the upstream call,
// between its end and the answer, after the answer), the fsync waited for counted apart.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../lib/service';
import type { CriticalPathReport } from './critical-path-report';

const probe = fileURLToPath(new URL('./critical-path-probe.cjs', import.meta.url));

// One write before the upstream call, two and an fsync after it, one after the answer. Ten
// promises made before the upstream call and twenty after it. Before the answer, 8 192 objects
// (about 300 KB with 4-byte fields, 500 KB with 8) kept for good and made old by two scavenges,
// then one full collection (\`--expose-gc\`).
const SERVER = `
const fs = require('node:fs');
const http = require('node:http');
const fd = fs.openSync(process.argv[2], 'a');
const kept = [];
const promises = (count) => { for (let i = 0; i < count; i += 1) Promise.resolve(i); };
const collect = () => {
  const block = [];
  for (let i = 0; i < 8192; i += 1) block.push({ a: i, b: i, c: i, d: i });
  kept.push(block);
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  gc();
};
const upstream = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); });
const front = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method !== 'POST') { res.end('{}'); return; }
    fs.writeSync(fd, 'message\\n');
    promises(10);
    const call = http.request({ port: upstream.address().port, method: 'POST' }, (answer) => {
      answer.resume();
      answer.on('end', () => {
        promises(20);
        collect();
        fs.writeSync(fd, 'reply\\n');
        fs.writeSync(fd, 'end\\n');
        fs.fsync(fd, () => {
          res.on('finish', () => fs.writeSync(fd, 'after\\n'));
          res.end('{}');
        });
      });
    });
    call.end('request');
  });
});
upstream.listen(0, '127.0.0.1', () =>
  front.listen(0, '127.0.0.1', () => console.log('READY ' + front.address().port)));
`;

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** Runs the server with the probe (`preloads` first), sends three messages, returns the report. */
async function measure(preloads: string[] = []): Promise<CriticalPathReport> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-probe-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'server.cjs'), SERVER);
  const server = startService([join(dir, 'server.cjs'), join(dir, 'log')], {
    nodeOptions: [
      '--expose-gc',
      ...preloads.flatMap((file) => ['--require', file]),
      '--require',
      probe,
    ],
  });
  cleanup.push(() => server.kill());
  const [, port] = await server.waitForLine(/^READY (\d+)$/);
  const report = server.waitForLine(/^CRITICAL_PATH#1 (\{.*\})$/);
  const url = `http://127.0.0.1:${port}`;
  for (let index = 0; index < 3; index += 1) {
    await (await fetch(`${url}/v1/sessions/s/messages`, { method: 'POST', body: '{}' })).text();
    // Not a message: neither timed nor counted.
    await (await fetch(`${url}/v1/sessions/s/events`)).text();
  }
  // The last answer's `finish` write has run once the next request was served.
  await (await fetch(`${url}/health`)).text();
  process.kill(server.pid, 'SIGUSR2');
  return JSON.parse((await report)[1] ?? '{}');
}

describe('the critical-path probe', () => {
  it('times each message by part and puts its fs calls where they happened', async () => {
    const measured = await measure();

    expect(measured.messages).toBe(3);
    expect(measured.fs).toEqual({
      pre: { calls: 1, ms: expect.any(Number) },
      post: { calls: 2, ms: expect.any(Number) },
      after: { calls: 1, ms: expect.any(Number) },
    });
    for (const part of ['beforeUpstream', 'upstream', 'afterUpstream', 'fsync'] as const)
      expect(measured[part], part).toBeGreaterThan(0);
    expect(measured.total).toBeGreaterThanOrEqual(measured.beforeUpstream + measured.upstream);
    expect(measured.afterUpstream).toBeGreaterThanOrEqual(measured.fsync);
    // Promises are counted only with `count-promises.cjs` preloaded.
    expect(measured.promises).toBeUndefined();
  }, 60_000);

  it("counts the process's collections per message and what its scavenges promoted", async () => {
    const { gc } = await measure();

    // Two scavenges and one full collection a message (which scavenges first), none besides.
    expect(gc.scavenges).toBeGreaterThanOrEqual(2);
    expect(gc.scavenges).toBeLessThanOrEqual(3);
    expect(gc.full).toBe(1);
    expect(gc.scavengeMs).toBeGreaterThan(0);
    expect(gc.fullMs).toBeGreaterThan(0);
    // The objects kept each message reached the old generation through the scavenges.
    expect(gc.promotedBytes).toBeGreaterThan(250 * 1024);
    expect(gc.promotedBytes).toBeLessThan(1024 * 1024);
  }, 60_000);

  it('counts the promises made before the upstream request and from it to the answer', async () => {
    const { promises } = await measure([
      fileURLToPath(new URL('./count-promises.cjs', import.meta.url)),
    ]);

    // Exactly what the server made: Node's own HTTP code makes none here.
    expect(promises).toEqual({ pre: 10, post: 20 });
  }, 60_000);
});
