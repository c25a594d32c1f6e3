/**
 * The lock's file kept from one hold to the next (`createCandidates`): fewer files created, and
 * none left behind by a process that exits, or, once another store writes, by one that was killed.
 */
import { constants } from 'node:fs';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingFileSystem, spawnNodeScript, useTempDir, waitFor } from '../test/support';
import { createSessionLock, createSessionLockWith } from './session-lock';
import { createTranscriptStore } from './transcript-store';

const temp = useTempDir();

const privateFiles = async (directory: string): Promise<string[]> =>
  (await readdir(directory)).filter((name) => name.endsWith('.tmp'));

describe("a released lock's file", () => {
  it('is linked again by the next hold: one file created for several holds', async () => {
    const path = join(temp.path, 's.lock');
    const creates: string[] = [];
    const { fileSystem } = recordingFileSystem({
      async open(real, file, flags, mode) {
        if ((flags & constants.O_CREAT) !== 0) creates.push(file);
        return real(file, flags, mode);
      },
    });
    const lock = createSessionLockWith(fileSystem, { path });
    const ttls = [123_456_789, 5, 77];
    const tokens: string[] = [];
    for (const ttlMs of ttls) {
      const handle = await lock.acquire({ ttlMs });
      // The record on disk is this hold's, whole, even when shorter than the one before it.
      const record = JSON.parse(await readFile(path, 'utf8'));
      expect(record).toMatchObject({ pid: process.pid, ttlMs, token: handle.owner.token });
      expect((await lock.readOwner())?.ttlMs).toBe(ttlMs);
      tokens.push(handle.owner.token);
      await handle.release();
      await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
    }
    expect(creates).toHaveLength(1);
    expect(new Set(tokens).size).toBe(1);
    expect(await privateFiles(temp.path)).toEqual([`s.lock.${tokens[0]}.tmp`]);
  });

  it('is replaced by a new one when its private name was removed meanwhile', async () => {
    const path = join(temp.path, 's.lock');
    const lock = createSessionLock({ path });
    await (await lock.acquire()).release();
    const [spare] = await privateFiles(temp.path);
    await unlink(join(temp.path, spare ?? ''));
    const handle = await lock.acquire({ timeoutMs: 2000 });
    expect(await handle.isHeld()).toBe(true);
    expect(handle.owner.token).not.toBe(spare?.split('.')[2]);
    await handle.release();
    expect(await privateFiles(temp.path)).toEqual([`s.lock.${handle.owner.token}.tmp`]);
  });

  it('is removed when its process exits', async () => {
    const child = await spawnNodeScript(
      temp.path,
      'holder.mjs',
      `import { createSessionLock } from DIST;
const lock = createSessionLock({ path: process.argv[2] });
await (await lock.acquire()).release();
await (await lock.acquire()).release();
console.log((await import('node:fs')).readdirSync(process.argv[3]).filter((n) => n.endsWith('.tmp')).length);`,
      [join(temp.path, 's.lock'), temp.path],
    );
    expect(await child.exited, child.stderr()).toBe(0);
    expect(child.stdout().trim()).toBe('1');
    expect(await privateFiles(temp.path)).toEqual([]);
  });

  it('left by a process killed with SIGKILL is removed by the next store that writes there, not a live one', async () => {
    const sessionsDir = join(temp.path, 'sessions');
    const child = await spawnNodeScript(
      temp.path,
      'killed.mjs',
      `import { createTranscriptStore } from DIST;
const store = createTranscriptStore({ sessionsDir: process.argv[2] });
await (await store.lease('a')).release();
console.log('released');
setInterval(() => {}, 1000);`,
      [sessionsDir],
    );
    await waitFor(() => child.stdout().includes('released'), { what: 'the child lease' });
    child.child.kill('SIGKILL');
    await child.exited;
    const [abandoned] = await privateFiles(sessionsDir);
    expect(abandoned).toMatch(/^a\.lock\..+\.tmp$/);

    // A live spare (this process's own) stays; the dead one goes once a store writes here.
    const live = createTranscriptStore({ sessionsDir });
    await (await live.lease('b')).release();
    const store = createTranscriptStore({ sessionsDir });
    await (await store.lease('c')).release();
    await waitFor(async () => !(await privateFiles(sessionsDir)).includes(abandoned ?? ''), {
      timeoutMs: 20_000,
      what: 'the abandoned spare to be removed',
    });
    const left = await privateFiles(sessionsDir);
    expect(left.filter((name) => name.startsWith('b.lock.'))).toHaveLength(1);
    expect(left.filter((name) => name.startsWith('c.lock.'))).toHaveLength(1);
  });
});
