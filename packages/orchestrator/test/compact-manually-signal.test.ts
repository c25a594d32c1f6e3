// compactManually passes the caller's signal to every wait it makes: the fence's acquire, the one
// read of the session, and the compactor's append through the fence.
import type { CompactorPort, SessionFence, SessionStorage, TranscriptEntry } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { compactManually } from '../src/compact-manually';
import type { TurnRuntime } from '../src/turn-runtime';
import { DIRECT_SUMMARY } from './compaction-summary';

const summary = DIRECT_SUMMARY;

describe('compactManually', () => {
  it('hands the caller’s signal to acquire, read and append', async () => {
    const seen: Array<[string, AbortSignal | undefined]> = [];
    const fence = {
      async acquire(options?: { signal?: AbortSignal }) {
        seen.push(['acquire', options?.signal]);
      },
      async append(_entries: readonly TranscriptEntry[], options?: { signal?: AbortSignal }) {
        seen.push(['append', options?.signal]);
        return { written: 1 };
      },
      async end() {},
    } as unknown as SessionFence;
    const storage = {
      async read(_sessionId: string, options?: { signal?: AbortSignal }) {
        seen.push(['read', options?.signal]);
        return { entries: [] };
      },
    } as unknown as SessionStorage;
    const runtime = { fences: () => fence, storage } as unknown as TurnRuntime;
    const compactor: CompactorPort = {
      async compact(request) {
        await request.store.append(request.sessionId, [summary]);
        return { status: 'compacted', entry: summary };
      },
    };
    const signal = new AbortController().signal;
    await expect(compactManually(runtime, compactor, 's1', { signal })).resolves.toMatchObject({
      status: 'compacted',
    });
    expect(seen).toEqual([
      ['acquire', signal],
      ['read', signal],
      ['append', signal],
    ]);
  });
});
