/**
 * The READMEs a newcomer reads first. The root README keeps its two commands first and shows every
 * published package on its own ("Use one package": an install line and an example that runs here,
 * against the built packages, and prints what its `// =>` comments say). Each package README
 * opens with a quick start; every README's install lines name what its examples import, in one
 * style, and a package README links only to files its tarball holds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTestDatabase } from '@keel/postgres-test-server';
import { fencedBlocks, itRunsReadmeBlocks, typeCheckReadmeBlocks } from '@keel/readme-examples';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  codeBlocks,
  importedPackages,
  installedByReadme,
  installStyleProblems,
  quickStartProblems,
  sections,
  unnamedImports,
  unshippedLinks,
} from './support/readme-rules';
import { publishedPackages, REPOSITORY_ROOT } from './support/workspace-packages';

// The PostgreSQL examples read DATABASE_URL: this file's own database on the run's test server.
const database = useTestDatabase();
beforeAll(() => {
  process.env['DATABASE_URL'] = database.url;
});

const rootReadme = readFileSync(join(REPOSITORY_ROOT, 'README.md'), 'utf8');
const published = publishedPackages();
const useOnePackage = sections(rootReadme).find((section) => section.heading === 'Use one package');

describe('the root README', () => {
  it('opens with the two commands: run the gateway, run every test', () => {
    const [first] = codeBlocks(rootReadme, 'sh');
    expect(rootReadme.startsWith('# Keel\n\n```sh\n')).toBe(true);
    expect(first?.trim().split('\n')).toEqual([
      expect.stringMatching(/pnpm setup:gateway && pnpm start +# the gateway/),
      expect.stringMatching(/pnpm check +# install everything and run every test$/),
    ]);
  });

  it('has a "Use one package" section: per package an npm install line and an example importing it', () => {
    expect(useOnePackage).toBeDefined();
    const subsections = sections(useOnePackage?.body ?? '', 3);
    expect(subsections.map((section) => section.heading).sort()).toEqual(
      published.map((entry) => `\`${entry.name}\``),
    );
    for (const entry of published) {
      const body =
        subsections.find((section) => section.heading === `\`${entry.name}\``)?.body ?? '';
      expect(installedByReadme(body), entry.name).toContain(entry.name);
      const [example, ...more] = codeBlocks(body, 'ts');
      expect(more, entry.name).toEqual([]);
      expect(importedPackages(example ?? ''), entry.name).toContain(entry.name);
      expect(unnamedImports(body), entry.name).toEqual([]);
    }
    expect(installStyleProblems(useOnePackage?.body ?? '')).toEqual([]);
  });

  // Scratch files go to test/.readme-examples/, so `@keel/*` resolve to the built packages.
  const examples = { packageDir: fileURLToPath(new URL('..', import.meta.url)), imports: {} };

  it('"Use one package" examples and every package quick start type-check (strict)', {
    timeout: 300_000,
  }, async () => {
    const quickStarts = published.flatMap((entry) => {
      const readme = readFileSync(join(entry.directory, 'README.md'), 'utf8');
      const first = sections(readme)[0];
      return first?.heading === 'Quick start' ? codeBlocks(first.body, 'ts') : [];
    });
    expect(quickStarts).toHaveLength(published.length);
    const blocks = [...fencedBlocks(useOnePackage?.body ?? ''), ...quickStarts];
    expect(await typeCheckReadmeBlocks(blocks, examples)).toEqual([]);
  });

  // An example prints only what it says: no SDK notice on stderr (Anthropic's SDK warns on
  // `console.warn` for a deprecated model id, so the examples name current models).
  const warnings: string[] = [];
  beforeEach(() => {
    vi.spyOn(console, 'warn').mockImplementation((...values: unknown[]) => {
      warnings.push(values.map(String).join(' '));
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    expect(warnings.splice(0), 'what the example warned').toEqual([]);
  });

  itRunsReadmeBlocks(fencedBlocks(useOnePackage?.body ?? ''), {
    ...examples,
    isolateTmpdir: true, // the examples' mkdtemp folders go with them
    title: '"Use one package" example %i runs and prints what it says',
  });
});

describe.each(published)('the $name README', (entry) => {
  const readme = readFileSync(join(entry.directory, 'README.md'), 'utf8');

  it('opens with a quick start: npm install, then at most ten lines of code', () => {
    expect(readme).toMatch(new RegExp(`^# ${entry.name}\\n`));
    expect(quickStartProblems(readme, entry.name)).toEqual([]);
  });

  it('names every package its examples import in an npm install line, and no other style', () => {
    expect(unnamedImports(readme)).toEqual([]);
    expect(installStyleProblems(readme)).toEqual([]);
  });

  it('links only to files the package ships', () => {
    expect(unshippedLinks(readme, entry.manifest.files ?? [])).toEqual([]);
  });
});
