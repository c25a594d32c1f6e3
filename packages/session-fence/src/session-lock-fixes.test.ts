/**
 * The lock fixes of issue 8, each shown on a real file system, with a fault injected where a real
 * file system or a real scheduler would produce it.
 */
import { spawnSync } from 'node:child_process';
import { link, lstat, readFile, unlink, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingFileSystem, textMessage, useTempDir } from '../test/support';
import { processIdentity } from './lock-owner';
import { createSessionLock, createSessionLockWith, type SessionLockEvent } from './session-lock';
import { createTranscriptStoreWith } from './transcript-store';

const temp = useTempDir();

function deadPid(): number {
  const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)']);
  return Number(dead.stdout.toString().trim());
}

function lockRecord(fields: Record<string, unknown>): string {
  return JSON.stringify({ token: 'other', acquiredAt: '', ...fields });
}

describe('a lock written by a process whose pid cannot be looked up here', () => {
  it('is not taken over by its pid when it comes from another pid namespace (another container, same host name)', async () => {
    const self = processIdentity();
    const path = join(temp.path, 's.lock');
    await writeFile(
      path,
      lockRecord({
        pid: deadPid(),
        host: self.host,
        bootId: self.bootId,
        pidNamespace: 'pid:[4026530000]',
      }),
    );
    const lock = createSessionLock({ path, staleMs: 60_000 });
    expect(await lock.tryAcquire()).toBeUndefined();
    // Its heartbeat still decides: once it is older than staleMs, the lock is stale.
    const old = new Date(Date.now() - 120_000);
    await utimes(path, old, old);
    const handle = await lock.tryAcquire();
    expect(handle).toBeDefined();
    await handle?.release();
  });

  it('is not taken over by its pid when it comes from another boot, or did not record one', async () => {
    const self = processIdentity();
    const path = join(temp.path, 's.lock');
    const lock = createSessionLock({ path, staleMs: 60_000 });
    for (const identity of [
      { bootId: 'another-boot', pidNamespace: self.pidNamespace },
      { pidNamespace: self.pidNamespace },
      {},
    ]) {
      await writeFile(path, lockRecord({ pid: deadPid(), host: self.host, ...identity }));
      expect(await lock.tryAcquire(), JSON.stringify(identity)).toBeUndefined();
    }
  });

  it('is taken over at once when its pid is dead in this very process table', async () => {
    const self = processIdentity();
    const path = join(temp.path, 's.lock');
    await writeFile(
      path,
      lockRecord({
        pid: deadPid(),
        host: self.host,
        bootId: self.bootId,
        pidNamespace: self.pidNamespace,
      }),
    );
    const handle = await createSessionLock({ path, staleMs: 60_000 }).tryAcquire();
    expect(handle).toBeDefined();
    await handle?.release();
  });

  it('records boot id and pid namespace with pid and host', async () => {
    const path = join(temp.path, 's.lock');
    const lock = createSessionLock({ path });
    const handle = await lock.acquire();
    // readOwner waits for the owner record of a handle this lock just handed out.
    expect((await lock.readOwner())?.token).toBe(handle.owner.token);
    const record = JSON.parse(await readFile(path, 'utf8'));
    const self = processIdentity();
    expect(record).toMatchObject({ pid: process.pid, host: self.host, token: handle.owner.token });
    expect(record.bootId).toBe(self.bootId);
    expect(record.pidNamespace).toBe(self.pidNamespace);
    if (process.platform === 'linux') {
      expect(record.bootId).toMatch(/^[0-9a-f-]{36}$/);
      expect(record.pidNamespace).toMatch(/^pid:\[\d+\]$/);
    }
    await handle.release();
  });
});

describe('taking the lock', () => {
  it('counts an EEXIST from link() as success when the lock is its own file (a lost NFS reply)', async () => {
    const path = join(temp.path, 's.lock');
    const { fileSystem } = recordingFileSystem({
      async link(real, existing, created) {
        await real(existing, created);
        // The link happened; the reply said it did not (a retransmitted NFS request).
        throw Object.assign(new Error(`EEXIST: file already exists, link '${existing}'`), {
          code: 'EEXIST',
        });
      },
    });
    const lock = createSessionLockWith(fileSystem, { path });
    const handle = await lock.acquire({ timeoutMs: 2000 });
    expect(await handle.isHeld()).toBe(true);
    expect((await lock.readOwner())?.token).toBe(handle.owner.token);
    await handle.release();
    await expect(lstat(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('letting the lock go', () => {
  it("never removes a successor's lock, even when the lock is replaced right before the removal", async () => {
    const path = join(temp.path, 's.lock');
    const successorFile = join(temp.path, 'successor');
    let replaced = false;
    // The moment a holder that was frozen (its lock judged stale and taken over) resumes its
    // release: a successor's lock now sits at the path, and the holder removes the path next.
    const replaceFirst = async (): Promise<void> => {
      if (replaced) return;
      replaced = true;
      await writeFile(
        successorFile,
        lockRecord({ pid: process.pid, host: 'x', token: 'successor' }),
      );
      await unlink(path);
      await link(successorFile, path);
    };
    const { fileSystem } = recordingFileSystem({
      async rename(real, from, to) {
        if (from === path) await replaceFirst();
        return real(from, to);
      },
      async unlink(real, target) {
        if (target === path) await replaceFirst();
        return real(target);
      },
    });
    const handle = await createSessionLockWith(fileSystem, { path }).acquire();
    await handle.release();
    expect(replaced).toBe(true);
    const successor = await lstat(successorFile);
    const atPath = await lstat(path);
    expect(atPath.ino).toBe(successor.ino);
    expect(JSON.parse(await readFile(path, 'utf8')).token).toBe('successor');
  });
});

describe('holding the lock', () => {
  it('reports a failed heartbeat as an event instead of swallowing it', async () => {
    const path = join(temp.path, 's.lock');
    const failure = new Error('EIO: i/o error, futimes');
    const { fileSystem } = recordingFileSystem({
      async futimes() {
        throw failure;
      },
    });
    const events: SessionLockEvent[] = [];
    let reported: () => void = () => {};
    const heard = new Promise<void>((resolve) => {
      reported = resolve;
    });
    const handle = await createSessionLockWith(fileSystem, { path, heartbeatMs: 10 }).acquire({
      onEvent(event) {
        events.push(event);
        reported();
      },
    });
    await heard;
    await handle.release();
    expect(events[0]).toEqual({ type: 'heartbeat-failed', path, error: failure });
  });

  it('reports a lock taken over while held as lock-lost', async () => {
    const path = join(temp.path, 's.lock');
    let lost: (event: SessionLockEvent) => void = () => {};
    const heard = new Promise<SessionLockEvent>((resolve) => {
      lost = resolve;
    });
    const handle = await createSessionLock({ path, heartbeatMs: 10 }).acquire({
      onEvent: (event) => lost(event),
    });
    await unlink(path);
    await writeFile(path, lockRecord({ pid: process.pid, host: 'x' }));
    expect(await heard).toEqual({ type: 'lock-lost', path });
    expect(await handle.isHeld()).toBe(false);
    await handle.release();
    expect(JSON.parse(await readFile(path, 'utf8')).token).toBe('other');
  });
});

describe('creating the sessions directory', () => {
  it('fsyncs the parents of every directory it created, so they survive a crash with the files', async () => {
    const sessionsDir = join(temp.path, 'a', 'b', 'sessions');
    const { fileSystem, calls } = recordingFileSystem();
    const store = createTranscriptStoreWith(fileSystem, { sessionsDir });
    await store.append('s1', [textMessage('1', 'x')]);
    const mkdirAt = calls.findIndex((call) => call.method === 'mkdir');
    const synced = calls.slice(mkdirAt).filter((call) => call.method === 'fsync');
    for (const directory of [temp.path, join(temp.path, 'a'), dirname(sessionsDir)]) {
      expect(synced.map((call) => call.path)).toContain(directory);
    }
    // And the directory itself, for the transcript's own entry.
    expect(synced.map((call) => call.path)).toContain(sessionsDir);
  });
});
