/**
 * Kleppmann's paused client, for real: a gateway process holding a session's lease is stopped
 * with SIGSTOP past its ttl (its heartbeat cannot run), another gateway takes the session over
 * and writes, then the first resumes and tries to write with its old lease. The database refuses
 * the late write by its token; the new holder's write stands.
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
const childScript = fileURLToPath(new URL('../test/lease-holder-child.mjs', import.meta.url));
let child: ChildProcess | undefined;

afterEach(() => {
  if (child?.exitCode === null) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});

/** The child's JSON lines, each waited for by a predicate. */
function messagesOf(process: ChildProcess) {
  const seen: Array<Record<string, unknown>> = [];
  const waiters: Array<{
    test: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }> = [];
  const lines = createInterface({ input: process.stdout! });
  lines.on('line', (line) => {
    const message = JSON.parse(line) as Record<string, unknown>;
    seen.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.test(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  return {
    seen,
    next(test: (message: Record<string, unknown>) => boolean) {
      const found = seen.find(test);
      if (found) return Promise.resolve(found);
      return new Promise<Record<string, unknown>>((resolve) => waiters.push({ test, resolve }));
    },
  };
}

describe('a lease holder paused past its ttl', () => {
  it('is refused by token when it resumes and writes; the new holder keeps the session', async () => {
    const sessionId = sessionIdFor('paused');
    let stderr = '';
    child = spawn(process.execPath, [childScript, database.url, sessionId, '600'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const messages = messagesOf(child);
    const ready = await Promise.race([
      messages.next((message) => 'ready' in message),
      once(child, 'exit').then(() => {
        throw new Error(`the child exited early: ${stderr}`);
      }),
    ]);
    const oldToken = String(ready['ready']);

    child.kill('SIGSTOP');
    const newHolder = createPostgresSessionStorage({ pool: database.pool() });
    const lease = await newHolder.lease(sessionId, { timeoutMs: 60_000 });
    expect(BigInt(lease.token) > BigInt(oldToken)).toBe(true);
    await newHolder.append(sessionId, [userText('the new holder wrote this')], { lease });

    child.kill('SIGCONT');
    child.stdin?.end('append\n');
    const answer = await messages.next((message) => 'refused' in message || 'appended' in message);
    expect(answer).toEqual({
      refused: 'stale-token',
      kind: 'session_takeover',
      name: 'SessionTakeoverError',
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);

    const texts = (await newHolder.read(sessionId)).entries.map((entry) =>
      entry.type === 'message' && entry.content[0]?.type === 'text' ? entry.content[0].text : '',
    );
    expect(texts).toEqual(['before the pause', 'the new holder wrote this']);
    await newHolder.append(sessionId, [userText('and goes on writing')], { lease });
    await lease.release();
  });
});
