/**
 * A gateway frozen (SIGSTOP) in the middle of a write, after its append's transaction locked the
 * session's fencing counter: the open transaction must not keep the session from every other
 * gateway. The server ends a store transaction left idle longer than a lease lives, so once the
 * frozen holder's lease has expired another gateway takes the session; the frozen write, when its
 * process runs again, fails and writes nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { useTestDatabase } from '@keel/postgres-test-server';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionIdFor, userText } from '../test/transcript-fixtures';
import { createPostgresSessionStorage } from './postgres-session-storage';

const database = useTestDatabase();
const childScript = fileURLToPath(new URL('../test/paused-writer-child.mjs', import.meta.url));
let child: ChildProcess | undefined;

afterEach(() => {
  if (child?.exitCode === null) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});

/** The child's JSON lines; `next` resolves with the first (past or future) that passes `test`. */
function linesOf(process: ChildProcess) {
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

describe('a lease holder frozen in the middle of a write', () => {
  it('does not keep the session: once its lease expired another gateway takes it; the frozen write fails and lands nowhere', async () => {
    const sessionId = sessionIdFor('frozen-write');
    let stderr = '';
    child = spawn(process.execPath, [childScript, database.url, sessionId, '500'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const next = linesOf(child);
    const exited = once(child, 'exit').then(() => {
      throw new Error(`the child exited early: ${stderr}`);
    });
    const ready = await Promise.race([next((line) => 'ready' in line), exited]);
    await Promise.race([next((line) => 'frozen' in line), exited]);

    const other = createPostgresSessionStorage({ pool: database.pool() });
    const lease = await other.lease(sessionId, { timeoutMs: 600_000 });
    expect(BigInt(lease.token) > BigInt(String(ready['ready']))).toBe(true);
    await other.append(sessionId, [userText('the other gateway wrote this')], { lease });

    child.kill('SIGCONT');
    const frozenWrite = await Promise.race([
      next((line) => 'failed' in line || 'appended' in line),
      exited,
    ]);
    expect(frozenWrite).toMatchObject({
      failed: expect.any(String),
    });
    const texts = (await other.read(sessionId)).entries.map((entry) =>
      entry.type === 'message' && entry.content[0]?.type === 'text' ? entry.content[0].text : '',
    );
    expect(texts).toEqual(['before the freeze', 'the other gateway wrote this']);
    await lease.release();
    await other.close();
  });
});
