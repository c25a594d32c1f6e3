/**
 * A quiet install on a fresh clone: every `bin` of every workspace package is a committed,
 * executable file (a small shim that imports the build output), so `pnpm install` can link it
 * before anything is built; CI turns turbo's telemetry off. `release-dry-run.test.ts` checks the
 * install output itself on a copy of the tree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runChecked } from './support/run-command';
import { REPOSITORY_ROOT, workspacePackages } from './support/workspace-packages';

const bins = workspacePackages().flatMap((entry) =>
  Object.entries(entry.manifest.bin ?? {}).map(([name, target]) => ({
    name,
    path: join(entry.path, target).split('\\').join('/'),
  })),
);

describe('installing the workspace', () => {
  it.each(bins)('links $name from a committed executable file ($path)', async ({ path }) => {
    expect(path).not.toMatch(/(^|\/)dist\//);
    const { stdout } = await runChecked('git', ['ls-files', '--stage', '--', path], {
      cwd: REPOSITORY_ROOT,
    });
    expect(stdout.split(/\s+/)[0]).toBe('100755');
    expect(readFileSync(join(REPOSITORY_ROOT, path), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it('turns turbo telemetry off in CI (.ci/run)', () => {
    const script = readFileSync(join(REPOSITORY_ROOT, '.ci', 'run'), 'utf8');
    expect(script).toMatch(/^export [^\n]*\bTURBO_TELEMETRY_DISABLED=1\b/m);
  });
});
