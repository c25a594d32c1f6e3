/**
 * The file store's `waitForChange` where the sessions directory cannot be watched (`fs.watch`
 * fails): a waiter polls its session's transcript and claim files, wakes on their change and
 * not on another session's, and still times out and aborts. (The watched path is held to the
 * port by the storage conformance kit.)
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../test/support';
import { createFileSessionChanges } from './file-session-changes';

const temp = useTempDir();
const LONG = 60_000;

function unwatchable() {
  const sessionsDir = join(temp.path, 'sessions');
  const changes = createFileSessionChanges({
    sessionsDir,
    pollMs: 20,
    watch: () => {
      throw Object.assign(new Error('no watch here'), { code: 'ENOSYS' });
    },
  });
  return { sessionsDir, changes };
}

describe('waitForChange of the file store without fs.watch (polling)', () => {
  it('wakes on a change of the session’s transcript or claim files, not of another session', async () => {
    const { sessionsDir, changes } = unwatchable();
    await mkdir(sessionsDir, { recursive: true });
    await writeFile(join(sessionsDir, 's1.jsonl'), 'one\n');
    const other = changes.waitForChange('s2', { timeoutMs: 400 });
    const appended = changes.waitForChange('s1', { timeoutMs: LONG });
    // Let the waiters look first (each compares with what it saw when it began).
    await new Promise((resolve) => setTimeout(resolve, 100));
    await appendFile(join(sessionsDir, 's1.jsonl'), 'two\n');
    expect(await appended).toBe(true);
    expect(await other).toBe(false);

    const claimed = changes.waitForChange('s1', { timeoutMs: LONG });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await writeFile(join(sessionsDir, 's1.turn.lock'), 'held');
    expect(await claimed).toBe(true);
  });

  it('times out with false, and rejects with the reason on abort', async () => {
    const { changes } = unwatchable();
    expect(await changes.waitForChange('s1', { timeoutMs: 100 })).toBe(false);
    const controller = new AbortController();
    const waiting = changes.waitForChange('s1', { timeoutMs: LONG, signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});
