// A manual compaction (`orchestrator.compact`) hands the compactor exactly what the caller asked
// for: `manual`, the caller's focus when there is one (no `focus` member when there is none), the
// session's entries as one read, and an `append` that writes through a fence of its own.
import type { CompactionEntry, CompactorPort, CompactRequest } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * A compactor (a plugin's) that keeps each request and writes one summary entry; never over its
 * threshold, so a turn does not call it.
 */
function recordingCompactor(requests: CompactRequest[]): CompactorPort {
  return {
    shouldCompact: () => false,
    async compact(request) {
      requests.push(request);
      const { entries } = await request.store.read(request.sessionId);
      const entry: CompactionEntry = {
        type: 'compaction',
        id: 'compaction-1',
        timestamp: new Date(0).toISOString(),
        summary: `a summary of ${entries.length} entries`,
        firstKeptEntryId: null,
        provenance: {
          producerId: 'recording',
          attempts: 1,
          tokensBefore: 100,
          tokensAfter: 10,
          sourceDigest: 'sha256:00',
        },
      };
      await request.store.append(request.sessionId, [entry]);
      return { status: 'compacted', entry };
    },
  };
}

describe('orchestrator.compact', () => {
  it('passes the focus it was given, as `manual`, and writes the entry', async () => {
    const requests: CompactRequest[] = [];
    harness = await createHarness({ compactor: () => recordingCompactor(requests) });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    const before = (await harness.entries('s1')).length;
    const result = await harness.orchestrator.compact('s1', { focus: 'the budget' });
    expect(result.status).toBe('compacted');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ sessionId: 's1', trigger: 'manual', focus: 'the budget' });
    const entries = await harness.entries('s1');
    expect(entries).toHaveLength(before + 1);
    expect(entries.at(-1)).toMatchObject({ summary: `a summary of ${before} entries` });
  });

  it('without a focus, the request has no focus member', async () => {
    const requests: CompactRequest[] = [];
    harness = await createHarness({ compactor: () => recordingCompactor(requests) });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    await harness.orchestrator.compact('s1');
    expect(requests).toHaveLength(1);
    expect(Object.keys(requests[0] ?? {}).sort()).toEqual(
      ['sessionId', 'signal', 'store', 'trigger'].sort(),
    );
    expect(requests[0]?.signal.aborted).toBe(false);
  });
});
