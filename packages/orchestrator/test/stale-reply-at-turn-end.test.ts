// A takeover found only by the turn's last write (another gateway wrote after the model answered,
// before the reply and the turn's end were stored): the turn ends `resend`, and the reply it could
// not store comes back as `staleReply` (run-turn.ts's closing append; a hand-made mutant that
// passed no stale reply there fails this test; an empty reply gives none — a mutant that kept '' fails).
import { createSessionFence } from '@keel/session-fence';
import type { SessionStorage } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { foreignMessage } from './foreign-message';
import { createHarness, type Harness, userTexts } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const foreign = foreignMessage();

describe('a takeover found by the turn’s last write', () => {
  it('ends resend, with the reply it could not store as staleReply', async () => {
    let fenced: SessionStorage | undefined;
    let written = false;
    harness = await createHarness({
      defaultReply: () => 'the reply nobody stored',
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
    expect(outcome).toMatchObject({
      kind: 'resend',
      errorKind: 'session_takeover',
      staleReply: 'the reply nobody stored',
    });
    expect(harness.sent()).toHaveLength(1);
    // Nothing of the reply was stored; the other writer's message is there.
    const entries = await harness.entries('s1');
    expect(JSON.stringify(entries)).not.toContain('the reply nobody stored');
    expect(userTexts(entries)).toEqual(['hello', 'written by another gateway']);
  });

  it('an empty reply leaves no staleReply at all', async () => {
    let fenced: SessionStorage | undefined;
    let written = false;
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: '' }, match: { model: 'primary' } }],
      wrapStorage: (storage) => {
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
  });
});
