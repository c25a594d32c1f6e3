/**
 * Child-process tests import this package's built `dist/` (a real second process cannot load
 * the TypeScript sources), so `dist/` must match `src/`.
 *
 * - In CI (`CI` set) this never builds: `pnpm check` builds every package (through turbo, whose
 *   cache key covers the sources) before any test runs. A missing `dist/` means that build did
 *   not run, and the run fails here with a clear message instead of quietly testing a build
 *   made by the test runner. File times are not compared in CI: a turbo cache restore may keep
 *   the build's old times while a fresh checkout gives the sources new ones.
 * - Locally it rebuilds once when a source file is newer than `dist/`, without `clean`, so a
 *   process that is reading `dist/` at that moment (another package's tests) never finds it gone.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

function newestInputMtime(): number {
  const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(name))
    .map((name) => join(root, 'src', name));
  const inputs = [...sources, join(root, 'tsup.config.ts'), join(root, 'package.json')];
  return Math.max(...inputs.map((path) => statSync(path).mtimeMs));
}

function oldestOutputMtime(): number {
  try {
    return Math.min(
      ...['index.js', 'index.d.ts'].map((name) => statSync(join(root, 'dist', name)).mtimeMs),
    );
  } catch {
    return 0;
  }
}

function inCi(): boolean {
  const value = process.env['CI'];
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

export default async function setup(): Promise<void> {
  const built = oldestOutputMtime();
  if (inCi()) {
    if (built > 0) return;
    throw new Error(
      '@keel/session-fence: dist/ is missing. In CI the build runs before the tests (pnpm check); run `pnpm --filter @keel/session-fence build` first.',
    );
  }
  if (built >= newestInputMtime()) return;
  if (process.cwd() !== root.replace(/\/$/, '')) {
    throw new Error(
      `@keel/session-fence: dist/ is stale; run the tests from ${root} or build first (pnpm build).`,
    );
  }
  const { build } = await import('tsup');
  await build({ config: join(root, 'tsup.config.ts'), clean: false, silent: true });
}
