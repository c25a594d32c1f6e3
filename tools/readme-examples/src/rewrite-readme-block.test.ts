import { describe, expect, it } from 'vitest';
import { rewriteReadmeBlock } from './rewrite-readme-block';

describe('rewriteReadmeBlock', () => {
  it('points exact and prefix imports at the source, relative to the scratch folder', () => {
    const code = [
      "import { a } from '@keel/a';",
      "import { b } from './b';",
      "import { c } from '@keel/a-c';",
      "import { d } from 'node:d';",
    ].join('\n');
    const rewritten = rewriteReadmeBlock(code, {
      packageDir: '/repo/packages/a',
      imports: { '@keel/a': 'src/index', './': 'src/' },
    });
    expect(rewritten).toBe(
      [
        "import { a } from '../src/index';",
        "import { b } from '../src/b';",
        "import { c } from '@keel/a-c';",
        "import { d } from 'node:d';",
        'export {};',
        '',
      ].join('\n'),
    );
  });
});
