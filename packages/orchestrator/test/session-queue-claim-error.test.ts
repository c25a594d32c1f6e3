import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider } from '@keel/testing';
import { afterEach, expect, it } from 'vitest';
import { createGateway } from './two-gateways';

// A turn whose claim fails (the store errs before the turn read the transcript) ends; a message
// that arrived meanwhile, waiting for that turn to hold the transcript (to tell a repeat), goes on
// to its own turn: the ended turn is let go of (`dispose`) whatever path it ended on.

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

it('a message waiting on a turn whose claim failed gets its own turn', async () => {
  const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-claim-error-'));
  cleanup.push(() => rm(sessionsDir, { recursive: true, force: true }));
  const mock = await createMockProvider({});
  cleanup.push(() => mock.close());
  let reach: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  let calls = 0;
  const { orchestrator } = createGateway('a', sessionsDir, mock, async () => undefined, {
    // The first claim waits, then fails; the others go to the store.
    wrapClaims: (claims) => ({
      ...claims,
      async claimTurn(...args) {
        calls += 1;
        if (calls > 1) return claims.claimTurn(...args);
        reach();
        return failed;
      },
    }),
  });
  cleanup.push(() => orchestrator.shutdown({ graceMs: 0 }));

  const first = orchestrator.runTurn({ sessionId: 's1', input: 'first', clientMessageId: 'c1' });
  await reached;
  const second = orchestrator.runTurn({ sessionId: 's1', input: 'second', clientMessageId: 'c2' });
  fail(Object.assign(new Error('connection to the database lost'), { code: 'ECONNRESET' }));
  expect(await first).toMatchObject({
    kind: 'error',
    errorKind: 'connection',
    clientMessageId: 'c1',
  });
  expect(await second).toMatchObject({ kind: 'reply', clientMessageId: 'c2' });
  expect(mock.requests).toHaveLength(1);
}, 60_000);
