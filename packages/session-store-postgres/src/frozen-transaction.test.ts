/**
 * A gateway frozen (SIGSTOP) inside one of the store's transactions, holding its row locks: the
 * open transaction must not keep every other gateway waiting for as long as the process is frozen.
 * The server ends a store transaction left idle past its limit (a lease's ttl for sessions,
 * `transactionIdleTimeoutMs` for provider health), and the frozen work, when its process runs
 * again, fails and writes nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { useTestDatabase } from '@keel/postgres-test-server';
import { afterEach, describe, expect, it } from 'vitest';
import { linesOf } from '../test/lines-of';
import { sessionIdFor, userText } from '../test/transcript-fixtures';
import { createPostgresProviderHealth } from './postgres-provider-health';
import { createPostgresSessionStorage } from './postgres-session-storage';

const database = useTestDatabase();
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});

/** Starts a child script of `test/`; `next` waits for one of its lines, failing if it exits first. */
function startChild(script: string, args: string[]) {
  const path = fileURLToPath(new URL(`../test/${script}`, import.meta.url));
  const child = spawn(process.execPath, [path, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = linesOf(child);
  const exited = once(child, 'exit').then(() => {
    throw new Error(`${script} exited early: ${stderr}`);
  });
  exited.catch(() => {});
  return {
    child,
    next: (test: (line: Record<string, unknown>) => boolean) => Promise.race([lines(test), exited]),
  };
}

describe('a gateway frozen inside a transaction', () => {
  it('in a write: once its lease expired another gateway takes the session; the frozen write fails and lands nowhere', async () => {
    const sessionId = sessionIdFor('frozen-write');
    const { child, next } = startChild('paused-writer-child.mjs', [database.url, sessionId, '500']);
    const ready = await next((line) => 'ready' in line);
    await next((line) => 'frozen' in line);

    const other = createPostgresSessionStorage({ pool: database.pool() });
    const lease = await other.lease(sessionId, { timeoutMs: 600_000 });
    expect(BigInt(lease.token) > BigInt(String(ready['ready']))).toBe(true);
    await other.append(sessionId, [userText('the other gateway wrote this')], { lease });

    child.kill('SIGCONT');
    expect(await next((line) => 'failed' in line || 'appended' in line)).toMatchObject({
      failed: expect.any(String),
    });
    const texts = (await other.read(sessionId)).entries.map((entry) =>
      entry.type === 'message' && entry.content[0]?.type === 'text' ? entry.content[0].text : '',
    );
    expect(texts).toEqual(['before the freeze', 'the other gateway wrote this']);
    await lease.release();
    await other.close();
  });

  it('in a provider health report: the other gateways report and ask on; the frozen report fails and changes nothing', async () => {
    const schema = `frozen_health_${Date.now() % 1_000_000}`;
    const { child, next } = startChild('paused-health-child.mjs', [database.url, schema, '500']);
    await next((line) => 'ready' in line);
    await next((line) => 'frozen' in line); // inside its report, the breaker row locked

    const other = createPostgresProviderHealth({ pool: database.pool(), schema });
    const target = { providerId: 'anthropic', profileId: 'two', model: 'sonnet' };
    await other.report({ type: 'overloaded', target, retryAfterMs: 30_000 });
    expect(await other.permit(target)).toMatchObject({ allowed: false, reason: 'breaker-open' });
    const opened = (await other.snapshot()).breakers;

    child.kill('SIGCONT');
    expect(await next((line) => 'failed' in line || 'reported' in line)).toMatchObject({
      failed: expect.any(String),
    });
    expect((await other.snapshot()).breakers).toEqual(opened);
    await other.close();
  });
});
