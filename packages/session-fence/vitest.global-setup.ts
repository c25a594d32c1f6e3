/**
 * Child-process tests import this package's built `dist/` (a real second process cannot load
 * the TypeScript sources). Build it once here if it is missing or older than any source file.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL('.', import.meta.url));
  const dist = join(root, 'dist', 'index.js');
  const sourceDir = join(root, 'src');
  const newestSource = Math.max(
    ...readdirSync(sourceDir)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .map((name) => statSync(join(sourceDir, name)).mtimeMs),
  );
  let built = 0;
  try {
    built = statSync(dist).mtimeMs;
  } catch {
    built = 0;
  }
  if (built >= newestSource) return;
  const { build } = await import('tsup');
  await build({ config: join(root, 'tsup.config.ts'), silent: true });
}
