// A compaction's model calls cost money too, and belong to the session being compacted. The
// compactor's model port is shared by every session and is not told which one a call is for, so
// each compaction runs inside an async scope naming its session, and the usage each of its calls
// reports is passed on with that session (the keyring charges it to the key that owns it).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { CompactorPort, ModelPort, Usage } from '@keel/spec';

/** One compaction model call's reported usage. */
export interface CompactionUsage {
  sessionId: string;
  /** `providerId/model` of the summarizer. */
  model: string;
  usage: Usage;
}

export interface CompactionUsageTap {
  /** The summarizer's port, reporting each call's usage with the session of its compaction. */
  model(port: ModelPort, model: string): ModelPort;
  /** The compactor, each compaction in the scope of its session. */
  compactor<C extends CompactorPort>(compactor: C): C;
  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (usage: CompactionUsage) => void): () => void;
}

export function createCompactionUsageTap(): CompactionUsageTap {
  const scope = new AsyncLocalStorage<string>();
  const listeners = new Set<(usage: CompactionUsage) => void>();
  const report = (usage: CompactionUsage) => {
    for (const listener of listeners) listener(usage);
  };
  return {
    model(port, model) {
      return {
        specificationVersion: port.specificationVersion,
        provider: port.provider,
        api: port.api,
        capabilities: port.capabilities,
        async *stream(request, options) {
          const sessionId = scope.getStore();
          for await (const event of port.stream(request, options)) {
            if (event.type === 'usage' && sessionId !== undefined) {
              const { type: _type, ...usage } = event;
              report({ sessionId, model, usage });
            }
            yield event;
          }
        },
      };
    },
    compactor(compactor) {
      const wrapped = Object.create(compactor) as typeof compactor;
      wrapped.compact = (request) => scope.run(request.sessionId, () => compactor.compact(request));
      return wrapped;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
