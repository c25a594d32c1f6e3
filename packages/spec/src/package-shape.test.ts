import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as spec from './index';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('@keel/spec stays a spec', () => {
  it('has no dependencies of any kind at run time', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
  });

  it('exports version constants only: no functions, no classes', () => {
    expect({ ...spec }).toEqual({ SPEC_VERSION: 'v1', TRANSCRIPT_FORMAT_VERSION: 2 });
  });

  it('imports nothing but its own type modules', () => {
    const sources = [
      'content',
      'compaction',
      'error-kind',
      'health',
      'model',
      'orchestrator',
      'plugin',
    ]
      .concat(['storage', 'transcript', 'version', 'index'])
      .map((name) => readFileSync(join(packageDir, 'src', `${name}.ts`), 'utf8'));
    for (const source of sources) {
      const specifiers = [...source.matchAll(/from '([^']+)'/g)].map((match) => match[1]);
      expect(specifiers.filter((specifier) => !specifier?.startsWith('./'))).toEqual([]);
    }
  });
});
