/**
 * The counter's descriptor outlives a lease: the next lease of the session reads and writes the
 * same descriptor (no open, no close), the tokens still come from the file (another store's
 * lease between two is seen), and a kept descriptor is closed when idle, beyond the bound, or
 * when the sessions directory was removed (a counter created again is another file).
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordingFileSystem, useTempDir } from '../test/support';
import { createFenceCounters } from './fence-counters';
import { createTranscriptStore, createTranscriptStoreWith } from './transcript-store';

const temp = useTempDir();
const sessionsDir = () => join(temp.path, 'sessions');

afterEach(() => {
  vi.useRealTimers();
});

function recordedStore() {
  const { fileSystem, calls } = recordingFileSystem();
  const store = createTranscriptStoreWith(fileSystem, { sessionsDir: sessionsDir() });
  const counterCalls = (method: string) =>
    calls.filter((call) => call.path === store.fencePath('s') && call.method === method).length;
  return { store, calls, counterCalls };
}

describe('fencing-token counters kept open across leases', () => {
  it('the next lease of a session opens and closes nothing of the counter', async () => {
    const { store, counterCalls } = recordedStore();
    const first = await store.lease('s');
    await first.release();
    // The first lease opens it (created: an open without O_CREAT, then one with it).
    const opened = counterCalls('open');
    expect(opened).toBeGreaterThan(0);
    expect(counterCalls('close')).toBe(0);
    for (let index = 0; index < 3; index += 1) {
      const lease = await store.lease('s');
      expect(lease.token).toBe(String(index + 2));
      expect(await lease.isHeld()).toBe(true);
      await lease.release();
    }
    expect(counterCalls('open')).toBe(opened);
    expect(counterCalls('close')).toBe(0);
    expect(await readFile(store.fencePath('s'), 'utf8')).toBe(`${'4'.padStart(20, '0')}\n`);
  });

  it('reads each token from the file: another store’s leases in between are counted', async () => {
    const one = createTranscriptStore({ sessionsDir: sessionsDir() });
    const other = createTranscriptStore({ sessionsDir: sessionsDir() });
    const tokens: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      for (const store of [one, other]) {
        const lease = await store.lease('s');
        tokens.push(lease.token);
        await lease.release();
      }
    }
    expect(tokens).toEqual(['1', '2', '3', '4', '5', '6']);
    // A lease made stale by a newer one of the other store is found stale through the kept one.
    const older = await one.lease('s');
    await older.release();
    const newer = await other.lease('s');
    expect(await older.isHeld()).toBe(false);
    await newer.release();
  });

  it('a sessions directory removed and made again gets a new counter, from token 1', async () => {
    const { store } = recordedStore();
    for (let index = 0; index < 2; index += 1) await (await store.lease('s')).release();
    await rm(sessionsDir(), { recursive: true, force: true });
    const lease = await store.lease('s');
    expect(lease.token).toBe('1');
    expect(await readFile(store.fencePath('s'), 'utf8')).toBe(`${'1'.padStart(20, '0')}\n`);
    await lease.release();
  });

  it('closes a descriptor idle for idleMs, and the oldest idle ones beyond maxIdle', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { fileSystem, calls } = recordingFileSystem();
    const counters = createFenceCounters(fileSystem, { maxIdle: 2, idleMs: 1000 });
    const path = (name: string) => join(temp.path, `${name}.fence`);
    const opens = () => calls.filter((call) => call.method === 'open').length;
    const closed = () =>
      calls.filter((call) => call.method === 'close').map((call) => call.path.slice(-7));
    for (const name of ['a', 'b', 'c']) await (await counters.borrow(path(name))).giveBack();
    const openedFirst = opens();
    // Three idle, two kept: the least recently used one is closed.
    expect(closed()).toEqual(['a.fence']);
    const again = await counters.borrow(path('b'));
    vi.advanceTimersByTime(999);
    expect(closed()).toEqual(['a.fence']);
    vi.advanceTimersByTime(1);
    // `c` idle for idleMs; `b` is in use, its clock starts when it is given back.
    expect(closed()).toEqual(['a.fence', 'c.fence']);
    await again.giveBack();
    vi.advanceTimersByTime(999);
    expect(closed()).toEqual(['a.fence', 'c.fence']);
    vi.advanceTimersByTime(1);
    expect(closed()).toEqual(['a.fence', 'c.fence', 'b.fence']);
    expect(opens()).toBe(openedFirst);
    await counters.borrow(path('b'));
    expect(opens()).toBe(openedFirst + 1);
  });

  it('a descriptor forgotten while a lease uses it stays open until that lease gives it back', async () => {
    const { fileSystem, calls } = recordingFileSystem();
    const counters = createFenceCounters(fileSystem);
    const path = join(temp.path, 'x.fence');
    const first = await counters.borrow(path);
    const opened = calls.filter((call) => call.method === 'open').length;
    const second = await counters.borrow(path);
    expect(second.fd).toBe(first.fd);
    counters.forgetAll();
    await first.giveBack();
    expect(calls.filter((call) => call.method === 'close')).toHaveLength(0);
    await second.giveBack();
    await second.giveBack();
    expect(calls.filter((call) => call.method === 'close')).toHaveLength(1);
    const fresh = await counters.borrow(path);
    expect(calls.filter((call) => call.method === 'open').length).toBeGreaterThan(opened);
    await fresh.giveBack();
  });
});
