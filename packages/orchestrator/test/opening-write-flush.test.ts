// How a turn's opening write is flushed (run-turn.ts, `append`): with a new user message, its
// fsync runs while the model call does (`deferred`: nothing goes out before it is done); for a
// message already durable (recovered, queued), not on its own (`with-next`): the reply's flush
// covers it. Hand-made mutants: every opening write `deferred` (the recovered turn's is not
// `with-next`), every one `with-next` (a new message would not be flushed before its answer).
import { createSessionFence } from '@keel/session-fence';
import type { AppendOptions, SessionStorage, TranscriptEntry } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, seedUnanswered } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface Append {
  kinds: string[];
  flush: AppendOptions['flush'];
}

/** A harness whose fences write through a storage that notes each append's entries and flush. */
async function recordingHarness(appends: Append[]): Promise<Harness> {
  let storage: SessionStorage | undefined;
  const recording = (plain: SessionStorage): SessionStorage =>
    Object.assign(Object.create(plain) as SessionStorage, {
      append(sessionId: string, entries: readonly TranscriptEntry[], options?: AppendOptions) {
        appends.push({
          kinds: entries.map((entry) =>
            entry.type === 'message'
              ? `${entry.role}`
              : `${entry.type}${'phase' in entry ? `:${entry.phase}` : ''}`,
          ),
          flush: options?.flush,
        });
        return plain.append(sessionId, entries, options);
      },
    });
  const h = await createHarness({
    overrides: {
      fences: (sessionId) => {
        storage ??= recording(harness?.storage as SessionStorage);
        return createSessionFence({ storage, sessionId });
      },
    },
  });
  return h;
}

describe('a turn’s opening write', () => {
  it('with a new message is deferred; for a recovered one, left to the reply’s flush', async () => {
    const appends: Append[] = [];
    harness = await recordingHarness(appends);
    const h = harness;
    expect((await h.orchestrator.runTurn({ sessionId: 's1', input: 'hello' })).kind).toBe('reply');
    await seedUnanswered(h, 's2');
    const [recovered] = await h.orchestrator.recover('s2');
    expect(recovered?.kind).toBe('reply');
    expect(appends).toEqual([
      { kinds: ['user', 'turn:start'], flush: 'deferred' },
      { kinds: ['assistant', 'turn:end'], flush: undefined },
      { kinds: ['turn:start'], flush: 'with-next' },
      { kinds: ['assistant', 'turn:end'], flush: undefined },
    ]);
  });
});
