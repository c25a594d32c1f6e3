// A turn that lost its session keeps no copy of the transcript for the next turn: the next turn
// reads it again, even when nothing was written meanwhile (the turn's lock was taken over from
// outside, by another host that judged it abandoned — its heartbeat stopped here — and then left
// alone). A hand-made mutant that put the view back after a takeover too (run-turn.ts,
// `true && view !== undefined` where the view is put back) skips that read and fails this test.
import { join } from 'node:path';
import { createSessionLock } from '@keel/session-fence';
import type { SessionStorage } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('after a takeover', () => {
  it('the next turn reads the transcript again, even when the takeover wrote nothing', async () => {
    let reads = 0;
    let breakLock = true;
    harness = await createHarness({
      // A frozen holder: no heartbeat, so its lock goes stale 300 ms after its last refresh.
      lock: { staleMs: 300, heartbeatMs: 2 ** 31 - 1 },
      wrapStorage: (storage) => {
        const counted = Object.create(storage) as SessionStorage;
        counted.read = (...args) => {
          reads += 1;
          return storage.read(...args);
        };
        return counted;
      },
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        // While the tool runs, another host takes the turn's lock over once it has gone stale,
        // and lets it go.
        async run() {
          if (breakLock) {
            const path = join((harness as Harness).sessionsDir, 's1.lock');
            const other = await createSessionLock({ path, staleMs: 300 }).acquire({
              timeoutMs: 10_000,
            });
            await other.release();
          }
          breakLock = false;
          return { content: 'found' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: { model: 'primary' },
        },
      ],
    });
    const lost = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'look' });
    expect(lost).toMatchObject({ kind: 'resend', errorKind: 'session_takeover' });
    expect(reads).toBe(1);

    const next = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(next.kind).toBe('reply');
    expect(reads).toBe(2);
  });
});
