// adoptingFence (adopting-fence.ts): only a non-empty adoption reaches `onAdopted`; the hand-over
// read gets the caller's signal (and no `signal` key without one), and adopts only when everything
// queued since the turn before is a user message.
import type {
  MessageEntry,
  QueuedSince,
  SessionFence,
  SessionTurnClaims,
  StorageCallOptions,
  TranscriptEntry,
  TranscriptState,
} from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { adoptingFence } from '../src/adopting-fence';

const state: TranscriptState = {
  exists: true,
  identity: 'i',
  size: 1,
  tailLength: 1,
  tailDigest: 'd',
};

const message = (role: 'user' | 'assistant', id: string): MessageEntry =>
  ({ type: 'message', id, messageId: id, role, content: [] }) as unknown as MessageEntry;

function fakeFence(adopted: MessageEntry[][] = []): SessionFence {
  return {
    sessionId: 's1',
    status: 'held',
    takeover: undefined,
    state,
    acquire: async () => undefined,
    release: async () => undefined,
    reacquire: async () => undefined,
    append: async () => ({ state }) as never,
    check: async () => undefined,
    end: async () => undefined,
    takeAdopted: () => adopted.shift() ?? [],
  };
}

function fakeClaims(entries: readonly TranscriptEntry[]) {
  const calls: StorageCallOptions[] = [];
  const claims = {
    queuedSince: async (
      _sessionId: string,
      _since: TranscriptState,
      options?: StorageCallOptions,
    ) => {
      calls.push(options as StorageCallOptions);
      return { change: undefined, state, queued: entries.length, entries } satisfies QueuedSince;
    },
  } as unknown as SessionTurnClaims;
  return { claims, calls };
}

async function adoptedOnAcquire(entries: readonly TranscriptEntry[]) {
  const { claims } = fakeClaims(entries);
  const seen: MessageEntry[][] = [];
  const fence = adoptingFence(fakeFence(), (messages) => seen.push(messages), {
    claims,
    since: state,
  });
  await fence.acquire();
  return seen;
}

describe('adoptingFence', () => {
  it('hands out nothing after a call whose fence adopted nothing, and what it adopted otherwise', async () => {
    const taken = [message('user', 'm1')];
    const seen: MessageEntry[][] = [];
    const fence = adoptingFence(fakeFence([[], taken]), (messages) => seen.push(messages));
    await fence.check();
    expect(seen).toEqual([]);
    await fence.check();
    expect(seen).toEqual([taken]);
  });

  it('passes the caller’s signal to the hand-over read', async () => {
    const { claims, calls } = fakeClaims([]);
    const fence = adoptingFence(fakeFence(), () => undefined, { claims, since: state });
    const signal = new AbortController().signal;
    await fence.acquire({ signal });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.signal).toBe(signal);
  });

  it('without a signal, the hand-over read gets options with no `signal` key', async () => {
    const { claims, calls } = fakeClaims([]);
    const fence = adoptingFence(fakeFence(), () => undefined, { claims, since: state });
    await fence.acquire();
    expect(calls).toHaveLength(1);
    expect(Object.keys(calls[0] ?? { missing: true })).toEqual([]);
  });

  it('adopts the user messages queued since the turn before', async () => {
    const queued = [message('user', 'm1'), message('user', 'm2')];
    expect(await adoptedOnAcquire(queued)).toEqual([queued]);
  });

  it('adopts nothing when nothing was queued', async () => {
    expect(await adoptedOnAcquire([])).toEqual([]);
  });

  it('adopts nothing when an entry other than a message was written since', async () => {
    const turn = { type: 'turn', id: 't' } as unknown as TranscriptEntry;
    expect(await adoptedOnAcquire([message('user', 'm1'), turn])).toEqual([]);
  });

  it('adopts nothing when a message not from the user was written since', async () => {
    expect(await adoptedOnAcquire([message('user', 'm1'), message('assistant', 'a1')])).toEqual([]);
  });
});
