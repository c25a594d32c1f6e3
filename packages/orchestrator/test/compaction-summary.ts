import type { CompactionEntry } from '@keel/spec';

/** A compaction entry as a direct compactor writes it (for tests that drive compaction by hand). */
export const DIRECT_SUMMARY: CompactionEntry = {
  type: 'compaction',
  id: 'compaction-1',
  timestamp: new Date(0).toISOString(),
  summary: 'a summary',
  firstKeptEntryId: null,
  provenance: {
    producerId: 'direct',
    attempts: 1,
    tokensBefore: 100,
    tokensAfter: 10,
    sourceDigest: 'sha256:00',
  },
};
