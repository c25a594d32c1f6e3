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

const probe = fileURLToPath(new URL('./critical-path-probe.cjs', import.meta.url));

// One write before the upstream call, two and an fsync after it, one after the answer.
const SERVER = `
const fs = require('node:fs');
const http = require('node:http');
const fd = fs.openSync(process.argv[2], 'a');
const upstream = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); });
const front = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method !== 'POST') { res.end('{}'); return; }
    fs.writeSync(fd, 'message\\n');
    const call = http.request({ port: upstream.address().port, method: 'POST' }, (answer) => {
      answer.resume();
      answer.on('end', () => {
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

describe('the critical-path probe', () => {
  it('times each message by part and puts its fs calls where they happened', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keel-probe-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'server.cjs'), SERVER);
    const server = startService([join(dir, 'server.cjs'), join(dir, 'log')], {
      nodeOptions: ['--require', probe],
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
    const measured = JSON.parse((await report)[1] ?? '{}');

    expect(measured.messages).toBe(3);
    expect(measured.fs).toEqual({
      pre: { calls: 1, ms: expect.any(Number) },
      post: { calls: 2, ms: expect.any(Number) },
      after: { calls: 1, ms: expect.any(Number) },
    });
    for (const part of ['beforeUpstream', 'upstream', 'afterUpstream', 'fsync'])
      expect(measured[part], part).toBeGreaterThan(0);
    expect(measured.total).toBeGreaterThanOrEqual(measured.beforeUpstream + measured.upstream);
    expect(measured.afterUpstream).toBeGreaterThanOrEqual(measured.fsync);
  }, 60_000);
});
