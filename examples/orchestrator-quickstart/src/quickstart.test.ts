import { describe, expect, it } from 'vitest';
import { quickstart } from './quickstart';

describe('the orchestrator quickstart', () => {
  it('answers through the fallback after one profile rotation, with three provider requests', async () => {
    const { outcome, decisions, requests } = await quickstart();
    expect(outcome).toMatchObject({ kind: 'reply', model: 'openai/gpt-fallback' });
    expect(decisions).toEqual(['rotate_profile', 'fallback_model']);
    expect(requests).toBe(3);
  });

  it('stays under 80 lines and imports public package entry points only', async () => {
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(new URL('./quickstart.ts', import.meta.url), 'utf8');
    expect(source.split('\n').length).toBeLessThan(80);
    const specifiers = [...source.matchAll(/from '([^']+)'/g)].map((match) => match[1]);
    expect(specifiers.filter((specifier) => /\/src\/|\.\.\//.test(specifier ?? ''))).toEqual([]);
  });
});
