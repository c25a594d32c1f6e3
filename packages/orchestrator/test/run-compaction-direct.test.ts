// runCompaction at its edges: `threshold` runs when the compactor says it is over, the owned
// append goes through the turn's fence with the turn's signal, a compaction counts once, only the
// turn's session's compaction events are passed on, the subscription ends, and a failure fails
// the turn only when the turn was stopped or taken over.
import type {
  CompactionEvent,
  CompactorPort,
  SessionTakeoverErrorShape,
  TranscriptEntry,
  TurnEvent,
} from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { runCompaction } from '../src/run-compaction';
import type { TurnProgress } from '../src/turn-progress';
import type { LiveTurn, TurnRuntime } from '../src/turn-runtime';
import { DIRECT_SUMMARY } from './compaction-summary';

const summary = DIRECT_SUMMARY;

interface Setup {
  runtime: TurnRuntime;
  turn: LiveTurn;
  progress: TurnProgress;
  emitted: TurnEvent[];
  appendSignals: Array<AbortSignal | undefined>;
  fence: { takeover: SessionTakeoverErrorShape | undefined };
}

function setup(compactor: CompactorPort): Setup {
  const emitted: TurnEvent[] = [];
  const appendSignals: Array<AbortSignal | undefined> = [];
  const fence = {
    takeover: undefined as SessionTakeoverErrorShape | undefined,
    async append(_entries: readonly TranscriptEntry[], options?: { signal?: AbortSignal }) {
      appendSignals.push(options?.signal);
      return { written: 1 };
    },
  };
  const runtime = {
    compactor,
    emitter: { emit: (event: TurnEvent) => emitted.push(event) },
    clock: { now: () => 0 },
  } as unknown as TurnRuntime;
  const turn = {
    sessionId: 's1',
    turnId: 'turn-1',
    entries: [] as TranscriptEntry[],
    controller: new AbortController(),
    fence,
  } as unknown as LiveTurn;
  const progress = { compactions: 0 } as TurnProgress;
  return { runtime, turn, progress, emitted, appendSignals, fence };
}

function compacting(extra: Partial<CompactorPort> = {}): CompactorPort {
  return {
    async compact(request) {
      await request.store.append(request.sessionId, [summary]);
      return { status: 'compacted', entry: summary };
    },
    ...extra,
  };
}

function failing(onFail: (s: Setup) => void, holder: { setup?: Setup }): CompactorPort {
  return {
    async compact() {
      if (holder.setup !== undefined) onFail(holder.setup);
      throw new Error('compactor down');
    },
  };
}

describe('runCompaction', () => {
  it('threshold: compacts when the compactor says it is over, counting one compaction', async () => {
    const s = setup(compacting({ shouldCompact: () => true }));
    await expect(runCompaction(s.runtime, s.turn, s.progress, 'threshold')).resolves.toEqual({
      type: 'compacted',
    });
    expect(s.progress.compactions).toBe(1);
    expect(s.turn.entries).toEqual([summary]);
  });

  it('appends through the fence with the turn’s signal', async () => {
    const s = setup(compacting());
    await runCompaction(s.runtime, s.turn, s.progress, 'overflow');
    expect(s.appendSignals).toEqual([s.turn.controller.signal]);
  });

  it('passes on only its own session’s compaction events, and unsubscribes', async () => {
    let listener: ((event: CompactionEvent) => void) | undefined;
    let unsubscribed = 0;
    const own = { type: 'compaction-start', sessionId: 's1' } as unknown as CompactionEvent;
    const other = { type: 'compaction-start', sessionId: 's2' } as unknown as CompactionEvent;
    const s = setup(
      compacting({
        subscribe(next) {
          listener = next;
          return () => {
            unsubscribed += 1;
          };
        },
        async compact() {
          listener?.(other);
          listener?.(own);
          return { status: 'compacted', entry: summary };
        },
      }),
    );
    await runCompaction(s.runtime, s.turn, s.progress, 'overflow');
    expect(s.emitted).toHaveLength(1);
    expect(s.emitted[0]).toMatchObject({
      type: 'compaction',
      sessionId: 's1',
      turnId: 'turn-1',
      event: own,
    });
    expect(unsubscribed).toBe(1);
  });

  it('a failure of a running turn is `failed`, not thrown', async () => {
    const holder: { setup?: Setup } = {};
    const s = setup(failing(() => undefined, holder));
    holder.setup = s;
    await expect(runCompaction(s.runtime, s.turn, s.progress, 'overflow')).resolves.toEqual({
      type: 'failed',
    });
    expect(s.progress.compactions).toBe(0);
  });

  it('a failure after the turn was stopped is thrown', async () => {
    const holder: { setup?: Setup } = {};
    const s = setup(failing((current) => current.turn.controller.abort(), holder));
    holder.setup = s;
    await expect(runCompaction(s.runtime, s.turn, s.progress, 'overflow')).rejects.toThrow(
      'compactor down',
    );
  });

  it('a failure after a takeover is thrown', async () => {
    const holder: { setup?: Setup } = {};
    const takeover = { name: 'SessionTakeoverError' } as unknown as SessionTakeoverErrorShape;
    const s = setup(
      failing((current) => {
        current.fence.takeover = takeover;
      }, holder),
    );
    holder.setup = s;
    await expect(runCompaction(s.runtime, s.turn, s.progress, 'overflow')).rejects.toThrow(
      'compactor down',
    );
  });
});
