/**
 * Type test (checked by `tsc --noEmit`): the real implementations satisfy compaction's ports
 * structurally, without compaction depending on them at runtime.
 */
import type { TranscriptStore } from '@keel/session-fence';
import type { Transport } from '@keel/transport';
import type { CompactionStore } from './compaction-store';
import type { CompactionModelPort } from './model-port';

export function transportIsAModelPort(transport: Transport): CompactionModelPort {
  return transport;
}

export function transcriptStoreIsACompactionStore(store: TranscriptStore): CompactionStore {
  return store;
}
