import type { CompactionProvider } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { CompactionError } from './compaction-error';
import { createCompactionRegistry } from './compaction-registry';

const provider = (id: string): CompactionProvider => ({
  specificationVersion: 'v1',
  id,
  summarize: async () => ({ summary: 'x' }),
});

describe('createCompactionRegistry', () => {
  it('registers in order, looks up by id, and unregisters', () => {
    const registry = createCompactionRegistry();
    const unregisterA = registry.register(provider('a'));
    registry.register(provider('b'));
    expect(registry.list().map((p) => p.id)).toEqual(['a', 'b']);
    expect(registry.get('b')?.id).toBe('b');
    unregisterA();
    unregisterA();
    expect(registry.list().map((p) => p.id)).toEqual(['b']);
    expect(registry.get('a')).toBeUndefined();
  });

  it('refuses a duplicate id with a typed error', () => {
    const registry = createCompactionRegistry();
    registry.register(provider('a'));
    const error = (() => {
      try {
        registry.register(provider('a'));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(CompactionError.isInstance(error) && error.code).toBe('duplicate-provider');
  });

  it.each([
    { ...provider('x'), specificationVersion: 'v2' },
    { ...provider(''), id: '' },
    provider('builtin:llm'),
    provider('hook:mine'),
    { specificationVersion: 'v1', id: 'no-summarize' },
    null,
  ])('refuses something that is not a v1 provider: %j', (candidate) => {
    const registry = createCompactionRegistry();
    expect(() => registry.register(candidate as CompactionProvider)).toThrow(
      /not a compaction provider/,
    );
  });
});

describe('CompactionError.isInstance', () => {
  it('recognises the marker, not the class identity', () => {
    const error = new CompactionError({ code: 'all-producers-failed', message: 'm' });
    expect(CompactionError.isInstance(error)).toBe(true);
    expect(CompactionError.isInstance({ [Symbol.for('keel.error.CompactionError')]: true })).toBe(
      true,
    );
    expect(CompactionError.isInstance(new Error('m'))).toBe(false);
    expect(CompactionError.isInstance(undefined)).toBe(false);
  });
});
