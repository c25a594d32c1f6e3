import { spawnSync } from 'node:child_process';
import { readdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type NodeChild, spawnNodeScript, useTempDir, waitFor } from '../test/support';
import { processIdentity } from './lock-owner';
import { SessionLockTimeoutError, UnsafeTranscriptPathError } from './session-fence-error';
import { createSessionLock } from './session-lock';

const temp = useTempDir();

/** Host, boot and pid namespace of this process, as a lock file of a process here records them. */
function thisProcessTable(): Record<string, string> {
  const { host, bootId, pidNamespace } = processIdentity();
  return {
    host,
    ...(bootId === undefined ? {} : { bootId }),
    ...(pidNamespace === undefined ? {} : { pidNamespace }),
  };
}
const children: NodeChild[] = [];
afterEach(async () => {
  for (const { child } of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

const contender = `
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createSessionLock } from DIST;
const [lockPath, counterPath, logPath, rounds, holdMs] = process.argv.slice(2);
const lock = createSessionLock({ path: lockPath, staleMs: 5000, pollMs: 5 });
for (let round = 0; round < Number(rounds); round += 1) {
  const handle = await lock.acquire({ timeoutMs: 60000 });
  appendFileSync(logPath, 'enter ' + process.pid + '\\n');
  const value = Number(readFileSync(counterPath, 'utf8'));
  await new Promise((resolve) => setTimeout(resolve, Number(holdMs)));
  writeFileSync(counterPath, String(value + 1));
  appendFileSync(logPath, 'exit ' + process.pid + '\\n');
  await handle.release();
}
`;

/** Every `enter pid` is followed by `exit pid` of the same process before anyone else enters. */
function assertMutualExclusion(log: string, expectedRounds: number): void {
  const lines = log.trim().split('\n');
  expect(lines).toHaveLength(expectedRounds * 2);
  for (let index = 0; index < lines.length; index += 2) {
    const enter = lines[index]?.split(' ');
    const exit = lines[index + 1]?.split(' ');
    expect(enter?.[0]).toBe('enter');
    expect(exit).toEqual(['exit', enter?.[1]]);
  }
}

const holder = `
import { createSessionLock } from DIST;
const [lockPath, staleMs, heartbeatMs] = process.argv.slice(2);
const lock = createSessionLock({ path: lockPath, staleMs: Number(staleMs), heartbeatMs: Number(heartbeatMs) });
const handle = await lock.acquire({ timeoutMs: 10000 });
process.on('SIGTERM', async () => {
  await handle.release();
  console.log('released');
  process.exit(0);
});
console.log('acquired ' + handle.owner.token);
setInterval(() => {}, 1000);
`;

describe('createSessionLock across processes', () => {
  it('lets only one of several contending child processes in at a time', async () => {
    const lockPath = join(temp.path, 's.lock');
    const counter = join(temp.path, 'counter');
    const log = join(temp.path, 'log');
    await writeFile(counter, '0');
    await writeFile(log, '');
    const started = await Promise.all(
      [1, 2, 3, 4].map((index) =>
        spawnNodeScript(temp.path, `contender-${index}.mjs`, contender, [
          lockPath,
          counter,
          log,
          '12',
          '2',
        ]),
      ),
    );
    children.push(...started);
    const codes = await Promise.all(started.map((child) => child.exited));
    expect(codes, started.map((child) => child.stderr()).join('\n')).toEqual([0, 0, 0, 0]);
    expect(await readFile(counter, 'utf8')).toBe('48');
    assertMutualExclusion(await readFile(log, 'utf8'), 48);
    expect((await readdir(temp.path)).filter((name) => name.startsWith('s.lock'))).toEqual([]);
  });

  it('takes over the lock of a holder killed with kill -9, within staleMs', async () => {
    const lockPath = join(temp.path, 's.lock');
    const staleMs = 3000;
    const child = await spawnNodeScript(temp.path, 'holder.mjs', holder, [
      lockPath,
      String(staleMs),
      '500',
    ]);
    children.push(child);
    await waitFor(() => child.stdout().includes('acquired'), { what: 'child to acquire' });
    const lock = createSessionLock({ path: lockPath, staleMs });
    expect((await lock.readOwner())?.pid).toBe(child.child.pid);
    expect(await lock.tryAcquire()).toBeUndefined();

    child.child.kill('SIGKILL');
    await child.exited;
    const handle = await lock.acquire({ timeoutMs: staleMs });
    expect((await lock.readOwner())?.token).toBe(handle.owner.token);
    await handle.release();
  });

  it('takes over a live holder whose heartbeat stopped (SIGSTOP), and the old holder cannot remove the new lock', async () => {
    const lockPath = join(temp.path, 's.lock');
    const child = await spawnNodeScript(temp.path, 'holder.mjs', holder, [lockPath, '1000', '100']);
    children.push(child);
    await waitFor(() => child.stdout().includes('acquired'), { what: 'child to acquire' });
    const lock = createSessionLock({ path: lockPath, staleMs: 1000 });
    expect(await lock.tryAcquire()).toBeUndefined();

    child.child.kill('SIGSTOP');
    const handle = await lock.acquire({ timeoutMs: 15_000 });
    child.child.kill('SIGCONT');
    child.child.kill('SIGTERM');
    await waitFor(() => child.stdout().includes('released'), { what: 'old holder to release' });
    expect(await handle.isHeld()).toBe(true);
    expect((await lock.readOwner())?.token).toBe(handle.owner.token);
    await handle.release();
  });

  it('keeps a live holder whose heartbeat runs, long past staleMs', async () => {
    const lockPath = join(temp.path, 's.lock');
    const child = await spawnNodeScript(temp.path, 'holder.mjs', holder, [lockPath, '400', '50']);
    children.push(child);
    await waitFor(() => child.stdout().includes('acquired'), { what: 'child to acquire' });
    const lock = createSessionLock({ path: lockPath, staleMs: 400 });
    for (let check = 0; check < 6; check += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await lock.tryAcquire()).toBeUndefined();
    }
    expect((await lock.readOwner())?.pid).toBe(child.child.pid);
  });

  it('lets exactly one of several contenders take over one stale lock at a time', async () => {
    const lockPath = join(temp.path, 's.lock');
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)']);
    const deadPid = Number(dead.stdout.toString().trim());
    await writeFile(
      lockPath,
      JSON.stringify({ pid: deadPid, ...thisProcessTable(), token: 'dead', acquiredAt: '' }),
    );
    const counter = join(temp.path, 'counter');
    const log = join(temp.path, 'log');
    await writeFile(counter, '0');
    await writeFile(log, '');
    const started = await Promise.all(
      [1, 2, 3, 4, 5].map((index) =>
        spawnNodeScript(temp.path, `c-${index}.mjs`, contender, [
          lockPath,
          counter,
          log,
          '1',
          '20',
        ]),
      ),
    );
    children.push(...started);
    const codes = await Promise.all(started.map((child) => child.exited));
    expect(codes, started.map((child) => child.stderr()).join('\n')).toEqual([0, 0, 0, 0, 0]);
    expect(await readFile(counter, 'utf8')).toBe('5');
    assertMutualExclusion(await readFile(log, 'utf8'), 5);
  });
});

describe('createSessionLock in one process', () => {
  it('times out with a coordination error naming the holder', async () => {
    const lock = createSessionLock({ path: join(temp.path, 's.lock') });
    const held = await lock.acquire();
    const error = await lock.acquire({ timeoutMs: 150 }).catch((caught: unknown) => caught);
    expect(SessionLockTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      keelKind: 'coordination',
      timeoutMs: 150,
      owner: { pid: process.pid },
    });
    await held.release();
  });

  it('wakes a waiting acquire on abort', async () => {
    const lock = createSessionLock({ path: join(temp.path, 's.lock') });
    const held = await lock.acquire();
    const controller = new AbortController();
    const waiting = lock.acquire({ signal: controller.signal, timeoutMs: 600_000 });
    setTimeout(() => controller.abort(), 50);
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await held.release();
  });

  it('releases idempotently and never removes a lock it no longer owns', async () => {
    const path = join(temp.path, 's.lock');
    const lock = createSessionLock({ path, staleMs: 200, heartbeatMs: 100_000 });
    const first = await lock.acquire();
    await first.release();
    await first.release();
    expect(first.released).toBe(true);
    const second = await lock.acquire({ timeoutMs: 100 });
    const stolen = await lock.acquire({ timeoutMs: 5000 });
    expect(await second.isHeld()).toBe(false);
    await second.release();
    expect(await stolen.isHeld()).toBe(true);
    await stolen.release();
    expect(await lock.readOwner()).toBeUndefined();
  });

  it('treats an old heartbeat from another host as stale but a fresh one as held', async () => {
    const path = join(temp.path, 's.lock');
    await writeFile(
      path,
      JSON.stringify({ pid: 1, host: 'elsewhere', token: 'other', acquiredAt: '' }),
    );
    const lock = createSessionLock({ path, staleMs: 60_000 });
    expect(await lock.tryAcquire()).toBeUndefined();
    const old = new Date(Date.now() - 120_000);
    await utimes(path, old, old);
    const handle = await lock.acquire({ timeoutMs: 1000 });
    expect((await lock.readOwner())?.token).toBe(handle.owner.token);
    await handle.release();
  });

  it('refuses a symlinked lock path', async () => {
    const target = join(temp.path, 'target');
    await writeFile(target, 'x');
    await symlink(target, join(temp.path, 's.lock'));
    const lock = createSessionLock({ path: join(temp.path, 's.lock') });
    await expect(lock.acquire({ timeoutMs: 100 })).rejects.toSatisfy(
      UnsafeTranscriptPathError.isInstance,
    );
    expect(await readFile(target, 'utf8')).toBe('x');
  });
});
