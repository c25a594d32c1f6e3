/**
 * The optional peer ranges admit every SDK major the tests run against: `openai` 6 (the
 * devDependency `openai`) and 7 (npm's current major, the devDependency alias `openai7`), and the
 * installed `@anthropic-ai/sdk`. The SDK-driven tests run over each of them (`SDK_TARGETS`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findPackageDirectory } from '../test/find-package-directory';

const packageDirectory = fileURLToPath(new URL('..', import.meta.url));

function manifest(directory: string): {
  version: string;
  peerDependencies?: Record<string, string>;
} {
  return JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
}

/**
 * Whether `version` satisfies a range of space-separated comparators (`>=5 <8`, `>=0.60 <2`), the
 * only form our peer ranges use; anything else fails loudly rather than guessing.
 */
function satisfies(version: string, range: string): boolean {
  const parse = (text: string) => text.split('.').map((part) => Number(part));
  const compare = (a: number[], b: number[]) => {
    for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
      const difference = (a[index] ?? 0) - (b[index] ?? 0);
      if (difference !== 0) return Math.sign(difference);
    }
    return 0;
  };
  const actual = parse(version);
  return range.split(/\s+/).every((comparator) => {
    const match = /^(>=|<=|>|<)(\d+(?:\.\d+){0,2})$/.exec(comparator);
    if (match === null) throw new Error(`Unsupported comparator ${comparator} in ${range}`);
    const order = compare(actual, parse(match[2] ?? ''));
    switch (match[1]) {
      case '>=':
        return order >= 0;
      case '>':
        return order > 0;
      case '<=':
        return order <= 0;
      default:
        return order < 0;
    }
  });
}

describe('peer dependency ranges', () => {
  const peers = manifest(packageDirectory).peerDependencies ?? {};

  it.each([
    ['openai', 'openai', 6],
    ['openai', 'openai7', 7],
    ['@anthropic-ai/sdk', '@anthropic-ai/sdk', undefined],
  ] as const)('%s admits the installed %s', (peer, installedAs, major) => {
    const { version } = manifest(findPackageDirectory(installedAs, packageDirectory));
    if (major !== undefined) expect(Number(version.split('.')[0])).toBe(major);
    expect(peers[peer]).toBeDefined();
    expect(satisfies(version, peers[peer] ?? '')).toBe(true);
  });

  it('reads comparator ranges the way npm does', () => {
    expect(satisfies('6.49.0', '>=5 <7')).toBe(true);
    expect(satisfies('7.59.0', '>=5 <7')).toBe(false);
    expect(satisfies('4.9.9', '>=5 <8')).toBe(false);
    expect(satisfies('0.60.0', '>=0.60 <2')).toBe(true);
    expect(satisfies('0.59.3', '>=0.60 <2')).toBe(false);
  });
});
