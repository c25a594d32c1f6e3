import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { processCpuMs, threadCpuMs } from './process-cpu';

/**
 * A child that spends a fixed amount of work on its main thread, then the same in a worker
 * thread, and prints what it finished (`main`, then `worker`), staying alive until stdin closes.
 */
const CHILD = `
const { Worker } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const burn = (rounds) => { let h = Buffer.alloc(64); for (let i = 0; i < rounds; i++) h = createHash('sha256').update(h).digest(); return h; };
const rounds = Number(process.argv[1]);
burn(rounds);
console.log('main');
const worker = new Worker('const { parentPort, workerData } = require("node:worker_threads"); const { createHash } = require("node:crypto"); let h = Buffer.alloc(64); for (let i = 0; i < workerData; i++) h = createHash("sha256").update(h).digest(); parentPort.postMessage("done"); setInterval(() => {}, 1000);', { eval: true, workerData: rounds });
worker.once('message', () => console.log('worker'));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

describe('threadCpuMs', () => {
  it('tells the main thread from the others, and together they make the process', async () => {
    // About 150–400 ms of CPU per burn on this machine: well above the clock's 10 ms ticks.
    const child = spawn(process.execPath, ['-e', CHILD, '150000'], { stdio: 'pipe' });
    const lines = createInterface({ input: child.stdout });
    const next = () => once(lines, 'line').then(([line]) => line as string);
    const pid = child.pid ?? 0;
    try {
      expect(await next()).toBe('main');
      const afterMain = await threadCpuMs(pid);
      expect(await next()).toBe('worker');
      const afterWorker = await threadCpuMs(pid);
      // The main thread's burn is counted as main; the worker's as another thread's.
      expect(afterMain.main).toBeGreaterThanOrEqual(50);
      expect(afterWorker.other - afterMain.other).toBeGreaterThanOrEqual(50);
      expect(afterWorker.main - afterMain.main).toBeLessThan(afterWorker.other - afterMain.other);
      // Together, about the process's own count (threads that ended would be missing).
      const whole = await processCpuMs(pid);
      const sum = afterWorker.main + afterWorker.other;
      expect(Math.abs(whole - sum)).toBeLessThanOrEqual(0.25 * whole);
    } finally {
      child.stdin.end();
      await once(child, 'exit');
    }
  }, 60_000);
});
