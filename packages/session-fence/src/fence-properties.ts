import type { SessionFenceStatus, TranscriptState } from '@keel/spec';
import type { SessionTakeoverError } from './session-fence-error';

/** Where a fence keeps the reads of its own state that its read-only properties ask. */
export const FENCE_READS = Symbol('fence reads');

export interface FenceReads {
  status(): SessionFenceStatus;
  takeover(): SessionTakeoverError | undefined;
  state(): TranscriptState | undefined;
}

interface HasReads {
  [FENCE_READS]: FenceReads;
}

/**
 * A fence's read-only properties, one set for every fence (their prototype), each asking that
 * fence's reads. Not getters in each fence's own literal: V8 allocates an object's own accessor
 * pair in the old generation, and through it the getter's closure — with the whole fence scope it
 * closes over — would outlive every scavenge until the next full collection, one turn's worth of
 * promoted garbage a turn (CONTRIBUTING.md, "Objects on the hot path").
 */
export const fenceProperties = {
  get status(): SessionFenceStatus {
    return (this as unknown as HasReads)[FENCE_READS].status();
  },
  get takeover(): SessionTakeoverError | undefined {
    return (this as unknown as HasReads)[FENCE_READS].takeover();
  },
  get state(): TranscriptState | undefined {
    return (this as unknown as HasReads)[FENCE_READS].state();
  },
};
