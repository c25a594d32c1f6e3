// A turn's answer goes out before its fence's last check (session-queue.ts, `endAfterAnswer`):
// that check cannot change the outcome. The session's next turn still waits for it. Hand-made
// mutants: the queue awaiting the fence's end before the answer (the first turn's answer never
// comes while its end is held), and the chain not waiting for the ending fence (the next turn
// takes the session while the turn before still holds it).
import { createSessionFence } from '@keel/session-fence';
import type { SessionFence } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
let openGate: () => void = () => undefined;
afterEach(async () => {
  openGate();
  await harness?.close();
  harness = undefined;
});

const nextLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the answer and the fence’s last check', () => {
  it('a turn is answered while its fence’s end is held; the session’s next turn waits for that end', async () => {
    const log: string[] = [];
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    let endCalled: () => void = () => undefined;
    const ending = new Promise<void>((resolve) => {
      endCalled = resolve;
    });
    let fenceNumber = 0;
    harness = await createHarness({
      overrides: {
        fences: (sessionId): SessionFence => {
          fenceNumber += 1;
          const number = fenceNumber;
          const fence = createSessionFence({ storage: harness?.storage as never, sessionId });
          return Object.assign(Object.create(fence) as SessionFence, {
            acquire: (options?: Parameters<SessionFence['acquire']>[0]) => {
              log.push(`acquire ${number}`);
              return fence.acquire(options);
            },
            end: async (options?: Parameters<SessionFence['end']>[0]) => {
              log.push(`end ${number}`);
              endCalled();
              if (number === 1) await gate;
              await fence.end(options);
              log.push(`ended ${number}`);
            },
          });
        },
      },
    });
    const h = harness;
    let answered = false;
    const first = h.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    void first.then(() => {
      answered = true;
    });
    await ending;
    for (let turn = 0; turn < 5; turn += 1) await nextLoopTurn();
    expect(answered).toBe(true);
    expect((await first).kind).toBe('reply');
    expect(log).toEqual(['acquire 1', 'end 1']);
    const second = h.orchestrator.runTurn({ sessionId: 's1', input: 'two' });
    for (let turn = 0; turn < 5; turn += 1) await nextLoopTurn();
    expect(log).toEqual(['acquire 1', 'end 1']);
    openGate();
    expect((await second).kind).toBe('reply');
    expect(log.slice(0, 4)).toEqual(['acquire 1', 'end 1', 'ended 1', 'acquire 2']);
  });
});
