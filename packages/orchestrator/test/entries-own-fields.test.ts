// The entries a turn writes (entries.ts) hold only their own fields: an enumerable property that
// something put on `Object.prototype` (prototype pollution) does not become a member of an entry,
// and so never reaches the transcript's JSON lines.
import { afterEach, describe, expect, it } from 'vitest';
import { createEntryFactory } from '../src/entries';

const factory = createEntryFactory(
  () => 'new-id',
  () => 0,
);

afterEach(() => {
  delete (Object.prototype as Record<string, unknown>).polluted;
});

describe('the entry factory under a polluted Object.prototype', () => {
  it('copies no inherited member into the entries it makes', () => {
    Object.defineProperty(Object.prototype, 'polluted', {
      value: 'from-the-prototype',
      enumerable: true,
      configurable: true,
      writable: true,
    });
    const message = factory.message({ role: 'user', content: [{ type: 'text', text: 'hi' }] });
    const start = factory.turnStart({ turnId: 't1', messageId: 'm1' });
    const selection = factory.modelSelection({ model: 'anthropic/primary', source: 'user' });
    for (const entry of [message, start, selection]) {
      expect(Object.hasOwn(entry, 'polluted')).toBe(false);
      expect(JSON.stringify(entry)).not.toContain('polluted');
    }
  });
});
