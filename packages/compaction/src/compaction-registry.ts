import type { CompactionProvider } from '@keel/spec';
import { CompactionError } from './compaction-error';

export interface CompactionRegistry {
  /** Adds a provider; returns a function that removes it again. Throws `CompactionError`. */
  register(provider: CompactionProvider): () => void;
  get(id: string): CompactionProvider | undefined;
  /** Registered providers in registration order. */
  list(): CompactionProvider[];
}

const RESERVED_PREFIXES = ['builtin:', 'hook:'];

function assertProvider(provider: unknown): asserts provider is CompactionProvider {
  const candidate = provider as Partial<CompactionProvider> | null;
  const valid =
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.specificationVersion === 'v1' &&
    typeof candidate.id === 'string' &&
    candidate.id.length > 0 &&
    !RESERVED_PREFIXES.some((prefix) => candidate.id?.startsWith(prefix)) &&
    typeof candidate.summarize === 'function';
  if (!valid) {
    throw new CompactionError({
      code: 'invalid-provider',
      message:
        "not a compaction provider: expected specificationVersion 'v1', a non-reserved id and summarize()",
    });
  }
}

/** Creates an empty registry of compaction providers, keyed by id. */
export function createCompactionRegistry(): CompactionRegistry {
  const providers = new Map<string, CompactionProvider>();
  return {
    register(provider) {
      assertProvider(provider);
      if (providers.has(provider.id)) {
        throw new CompactionError({
          code: 'duplicate-provider',
          message: `a compaction provider with id "${provider.id}" is already registered`,
        });
      }
      providers.set(provider.id, provider);
      return () => {
        if (providers.get(provider.id) === provider) providers.delete(provider.id);
      };
    },
    get: (id) => providers.get(id),
    list: () => [...providers.values()],
  };
}
