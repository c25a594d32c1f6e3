// buildModelChain / parseModelRef (model-chain.ts): a model named twice is tried once; each
// configuration error names the setting at fault.
import { describe, expect, it } from 'vitest';
import { buildModelChain, parseModelRef } from '../src/model-chain';

describe('model chain', () => {
  it('a model named again as a fallback is tried once', () => {
    const chain = buildModelChain('p/m', ['p/m', 'p/n'], [{ id: 'p', profiles: [{ id: 'k' }] }]);
    expect(chain.map((model) => model.key)).toEqual(['p/m', 'p/n']);
  });

  it('a malformed reference is an error at `models`', () => {
    expect(() => parseModelRef('no-slash')).toThrow(expect.objectContaining({ path: 'models' }));
  });

  it('a provider with no profiles is an error at `providers`', () => {
    expect(() => buildModelChain('p/m', [], [{ id: 'p', profiles: [] }])).toThrow(
      expect.objectContaining({ path: 'providers' }),
    );
  });
});
