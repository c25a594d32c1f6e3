// A takeover found only by the turn's last write turns the ending into `resend`; only a reply's text
// comes back as `staleReply`, never the copy of an error the turn ended with (run-turn.ts's
// closing append). A hand-made mutant that passed the error's text as the stale reply fails this test.
import { createSessionFence } from '@keel/session-fence';
import type { SessionStorage } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { foreignMessage } from './foreign-message';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const foreign = foreignMessage();

describe('a takeover found by the last write of a turn that ended in an error', () => {
  it('ends resend with no staleReply', async () => {
    let fenced: SessionStorage | undefined;
    let written = false;
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      models: { primary: 'anthropic/primary' },
      script: [
        {
          behavior: { type: 'http-error', status: 400, errorType: 'invalid_request_error' },
          match: { model: 'primary' },
        },
      ],
      wrapStorage: (storage) => {
        // The fences' storage: right before the turn's end is written, another writer lands.
        const wrapped = Object.create(storage) as SessionStorage;
        wrapped.append = async (sessionId, entries, options) => {
          const closing = entries.some((entry) => entry.type === 'turn' && entry.phase === 'end');
          if (closing && !written) {
            written = true;
            await storage.append(sessionId, [foreign]);
          }
          return storage.append(sessionId, entries, options);
        };
        fenced = wrapped;
        return storage;
      },
      overrides: { fences: (sessionId) => createSessionFence({ storage: fenced!, sessionId }) },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(written).toBe(true);
    expect(outcome).toMatchObject({ kind: 'resend', errorKind: 'session_takeover' });
    expect(outcome).not.toHaveProperty('staleReply');
    expect(harness.sent()).toHaveLength(1);
  });
});
