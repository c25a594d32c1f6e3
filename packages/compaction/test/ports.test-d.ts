/**
 * Type test (checked by `tsc --noEmit`): compaction's implementations satisfy the spec's ports, and
 * the ports compaction consumes are the spec's, which the real implementations satisfy.
 */

import type { TranscriptStore } from '@keel/session-fence';
import type {
  CompactionEvent,
  CompactionProvider,
  CompactionStore,
  CompactorPort,
  ModelPort,
  SessionStorage,
} from '@keel/spec';
import type { Transport } from '@keel/transport';
import type { CompactionRegistry } from '../src/compaction-registry';
import type { CompactorOptions } from '../src/create-compactor';
import { createCompactor } from '../src/create-compactor';

type ModelOption = NonNullable<CompactorOptions['model']>;

export function compactorIsACompactorPort(): CompactorPort {
  return createCompactor() satisfies CompactorPort;
}

export function registeredProvidersAreSpecProviders(
  registry: CompactionRegistry,
  provider: CompactionProvider,
): CompactionProvider | undefined {
  registry.register(provider);
  const configured: NonNullable<CompactorOptions['providers']> = [provider, provider.id];
  return configured.length > 0
    ? (registry.get(provider.id) satisfies CompactionProvider | undefined)
    : undefined;
}

export function anyModelPortIsTheSummarizersModel(port: ModelPort): ModelOption {
  return port satisfies ModelOption;
}

export function aTransportIsTheSummarizersModel(transport: Transport): ModelOption {
  return transport satisfies ModelOption;
}

/**
 * Any `SessionStorage` (the file store of `@keel/session-fence`, a database store) is a
 * `CompactionStore`, the orchestrator's fenced store included.
 */
export function sessionStorageIsACompactionStore(storage: SessionStorage): CompactionStore {
  return storage satisfies CompactionStore;
}

export function onEventTakesTheSpecEvents(
  listener: (event: CompactionEvent) => void,
): CompactorOptions['onEvent'] {
  return listener;
}

export function theFileStoreIsACompactionStore(store: TranscriptStore): CompactionStore {
  return store satisfies CompactionStore;
}
