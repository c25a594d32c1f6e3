/**
 * A waiter for a held lock tries again as soon as its holder lets go (wait-for-release.ts), not a
 * poll interval later: here the waiter polls once a minute, so only the lock file's change can
 * wake it before the test's own timeout. The hand-made mutant that waits the poll interval instead
 * (`abortableDelay`) times this test out. The wait still ends on abort, with the signal's reason.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir, waitFor } from '../test/support';
import { createSessionLock } from './session-lock';
import { waitForRelease } from './wait-for-release';

const temp = useTempDir();
const MINUTE = 60_000;

describe('a waiter for a held lock', () => {
  it('takes it as soon as its holder lets go', async () => {
    const path = join(temp.path, 's.lock');
    const holder = await createSessionLock({ path }).acquire();
    const waiter = createSessionLock({ path, pollMs: MINUTE }).acquire({ timeoutMs: 10 * MINUTE });
    // The waiter asked the holder (its first try found the lock held): it is waiting now.
    await waitFor(() => existsSync(`${path}.wanted`), { what: 'the waiter asking' });
    await holder.release();
    const taken = await waiter;
    expect(await taken.isHeld()).toBe(true);
    await taken.release();
  });

  it('ends on abort with the reason, and at once for a file already gone', async () => {
    const path = join(temp.path, 'held.lock');
    const holder = await createSessionLock({ path }).acquire();
    const controller = new AbortController();
    const waiting = waitForRelease(path, 10 * MINUTE, controller.signal);
    const reason = new Error('stop waiting');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await holder.release();
    await waitForRelease(join(temp.path, 'gone.lock'), 10 * MINUTE);
  });
});
