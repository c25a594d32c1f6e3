/**
 * The published declarations type-check for a consumer without Node's types (`types: []`, as on
 * TypeScript 7 or in a browser-targeted project): no `NodeJS.*`, no `node:` imports. Runs on
 * the built `dist/` (the global setup builds it locally; CI builds before testing).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const distDir = join(packageDir, 'dist');

describe('the published .d.ts', () => {
  it('names no NodeJS.* type and imports no node: module', async () => {
    const names = (await readdir(distDir)).filter((name) => name.endsWith('.d.ts'));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const text = await readFile(join(distDir, name), 'utf8');
      expect(text, name).not.toMatch(/\bNodeJS\./);
      expect(text, name).not.toMatch(/from ['"]node:/);
    }
  });

  it('type-checks in a consumer project without Node types', { timeout: 60_000 }, async () => {
    // Inside the package, so that `@keel/spec` resolves as it does for a consumer.
    const dir = await mkdtemp(join(packageDir, '.types-check-'));
    try {
      await writeFile(
        join(dir, 'consumer.ts'),
        [
          "import { createSessionFence, createTranscriptStore, defaultClaudeProjectsRoot } from '../dist/index.js';",
          "import type { SessionStorage, TranscriptStore } from '../dist/index.js';",
          "const store: TranscriptStore = createTranscriptStore({ sessionsDir: '/tmp/x' });",
          'const storage: SessionStorage = store;',
          "createSessionFence({ storage, sessionId: 's' });",
          "const root: string = defaultClaudeProjectsRoot({ HOME: '/home/x' });",
          'export { root };',
        ].join('\n'),
      );
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            types: [],
            lib: ['ES2022', 'DOM'],
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            skipLibCheck: false,
          },
          files: ['consumer.ts'],
        }),
      );
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const result = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], {
        encoding: 'utf8',
      });
      expect(result.stdout + result.stderr).toBe('');
      expect(result.status).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
