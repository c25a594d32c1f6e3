import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isProcessAlive, listDescendants, signalProcesses } from './process-tree';

const GRANDCHILD = `
const { spawn } = require('node:child_process');
const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { detached: true, stdio: 'ignore' });
console.log(grandchild.pid);
setInterval(() => {}, 1 << 30);
`;

describe('process tree', () => {
  it('finds a descendant in another session and kills it by record', async () => {
    const child = spawn(process.execPath, ['-e', GRANDCHILD], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    const grandchildPid = Number(chunk.toString().trim());
    const childPid = child.pid as number;
    try {
      const records = listDescendants(childPid);
      expect(records.map((record) => record.pid)).toContain(grandchildPid);
      expect(isProcessAlive(grandchildPid)).toBe(true);
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      // Orphaned now (re-parented away from the child): only the record still reaches it.
      expect(listDescendants(childPid)).toEqual([]);
      signalProcesses(records, 'SIGKILL');
      while (isProcessAlive(grandchildPid)) await delay(20);
      expect(isProcessAlive(grandchildPid)).toBe(false);
      expect(isProcessAlive(childPid)).toBe(false);
    } finally {
      try {
        process.kill(grandchildPid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });

  it('does not signal a record whose pid now names another process', () => {
    const stale = { pid: process.pid, startTime: 'not-our-start-time' };
    expect(isProcessAlive(stale)).toBe(false);
    signalProcesses([stale], 'SIGKILL');
    expect(isProcessAlive(process.pid)).toBe(true);
  });
});
