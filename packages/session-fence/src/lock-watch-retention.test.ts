import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, expect, it } from 'vitest';
import { useTempDir } from '../test/support';
import { nodeFileSystem } from './file-system';
import { createSessionLockWith, type InternalLockHandle } from './session-lock';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const NEVER = 2 ** 31 - 1;
const temp = useTempDir();
let handle: InternalLockHandle | undefined;

afterEach(async () => {
  await handle?.release();
  handle = undefined;
});

/** Collects until `ref`'s target is gone (a WeakRef's target lives at least to the end of the job). */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let round = 0; round < 10 && ref.deref() !== undefined; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return ref.deref() === undefined;
}

/** Registers a listener that alone keeps a new object alive, stops it, and returns a WeakRef to the object. */
function listenOnce(lock: InternalLockHandle): WeakRef<object> {
  const owner = { name: 'a turn that parked its lease' };
  const stop = lock.onWanted(() => {
    owner.name = 'asked';
  });
  stop();
  return new WeakRef(owner);
}

// A lock held across turns (a lease kept between them) keeps the watch its first listener started:
// the watch must not keep that listener (a turn's fence, through the lease it parked) alive.
it('a listener that stopped listening is not kept alive by the watch of the lock it listened to', async () => {
  const lock = createSessionLockWith(nodeFileSystem, {
    path: join(temp.path, 's.lock'),
    heartbeatMs: NEVER,
  });
  const taken = await lock.take();
  handle = taken.handle;
  await taken.recorded;
  const first = listenOnce(handle);
  // A later listener keeps the watch running, as the next turn's parked lease does.
  const later = handle.onWanted(() => {});
  expect(await collected(first)).toBe(true);
  later();
});
