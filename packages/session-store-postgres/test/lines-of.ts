import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** The child's JSON lines; `next` resolves with the first (past or future) that passes `test`. */
export function linesOf(process: ChildProcess) {
  const seen: Array<Record<string, unknown>> = [];
  const waiters: Array<(line: Record<string, unknown>) => boolean> = [];
  createInterface({ input: process.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    seen.push(line);
    for (const waiter of [...waiters]) if (waiter(line)) waiters.splice(waiters.indexOf(waiter), 1);
  });
  return (test: (line: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const found = seen.find(test);
      if (found !== undefined) return resolve(found);
      waiters.push((line) => {
        if (!test(line)) return false;
        resolve(line);
        return true;
      });
    });
}
