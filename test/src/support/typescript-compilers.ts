import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export interface TypeScriptCompiler {
  /** `5.9.3`, `7.0.2`. */
  version: string;
  /** The `tsc` entry, run with `node`. */
  tsc: string;
}

/** The `tsc` of an installed `typescript` (or an npm alias of it, e.g. `typescript7`). */
export function typescriptCompiler(packageName: string): TypeScriptCompiler {
  const directory = dirname(require.resolve(`${packageName}/package.json`));
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
    version: string;
    bin: { tsc: string };
  };
  return { version: manifest.version, tsc: join(directory, manifest.bin.tsc) };
}

/**
 * The compilers every consumer is checked with: the workspace's TypeScript 5.9 and TypeScript 7
 * (the native compiler, `typescript@7` on npm; the test workspace installs it as `typescript7`).
 */
export function consumerCompilers(): TypeScriptCompiler[] {
  return [typescriptCompiler('typescript'), typescriptCompiler('typescript7')];
}

/**
 * A consumer's `tsconfig.json`: strict, Node's ESM resolution, the declarations of every installed
 * package checked (no `skipLibCheck`), and no `@types/node` — the DOM library stands in for the
 * web APIs Node has (`fetch`, `AbortSignal`), so a published `.d.ts` that needs Node's types
 * (`NodeJS.*`) fails here.
 */
export const CONSUMER_TSCONFIG = {
  compilerOptions: {
    strict: true,
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2023', 'dom'],
    types: [],
    skipLibCheck: false,
    outDir: 'out',
    noEmitOnError: true,
  },
  include: ['*.ts'],
};
