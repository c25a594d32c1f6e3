import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { Manifest } from './workspace-packages';

/** Every file under `directory`, as `/`-separated paths relative to it, sorted. */
export function listFiles(directory: string, prefix = ''): string[] {
  return readdirSync(join(directory, prefix), { withFileTypes: true })
    .flatMap((entry) => {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      return entry.isDirectory() ? listFiles(directory, path) : [path];
    })
    .sort();
}

/** Files a tarball must hold. */
export const REQUIRED_FILES = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'] as const;

/**
 * What never belongs in a tarball: tests and type tests, fixtures, sources (`src/` is not
 * shipped: source maps carry their sources inline, see `sourceMapProblems`), build and test
 * configuration, scratch folders.
 */
const FORBIDDEN: ReadonlyArray<readonly [RegExp, string]> = [
  [/\.(test|spec)(-d)?\.[cm]?[jt]sx?$/, 'a test'],
  [/(^|\/)(test|tests|__tests__|__fixtures__|fixtures)\//, 'test code or fixtures'],
  [/^src\//, 'sources (not shipped)'],
  [
    /(^|\/)(vitest|vite|tsup)\.config\.[cm]?[jt]s$|(^|\/)vitest\.global-setup\./,
    'build or test configuration',
  ],
  [/(^|\/)tsconfig[^/]*\.json$|\.tsbuildinfo$/, 'TypeScript configuration'],
  [/(^|\/)(\.readme-examples|\.turbo|node_modules|coverage)\//, 'a scratch folder'],
];

/**
 * The source-map rule: a `.map` ships only self-contained. Each entry of `sources` must resolve
 * (from the map's folder) to a path inside the package that is not a test or fixture, and carry
 * its text in `sourcesContent` — or be a file of the tarball. A map whose `sources` reach
 * `../src/x.ts` is fine because the text is inline; without `sourcesContent` it would point at a
 * file nobody installs. Every `sourceMappingURL` must name a map in the tarball.
 */
export function sourceMapProblems(root: string, files: readonly string[]): string[] {
  const problems: string[] = [];
  const shipped = new Set(files);
  for (const file of files) {
    if (/\.[cm]?js$|\.d\.[cm]?ts$/.test(file)) {
      const reference = /[#@] sourceMappingURL=(\S+)\s*$/.exec(
        readFileSync(join(root, file), 'utf8'),
      );
      const url = reference?.[1];
      if (url !== undefined && !url.startsWith('data:')) {
        const target = posix.join(posix.dirname(file), url);
        if (!shipped.has(target)) problems.push(`${file} names the source map ${url}, not shipped`);
      }
    }
    if (!file.endsWith('.map')) continue;
    let map: { sources?: unknown; sourcesContent?: unknown; sourceRoot?: unknown };
    try {
      map = JSON.parse(readFileSync(join(root, file), 'utf8')) as typeof map;
    } catch {
      problems.push(`${file} is not JSON`);
      continue;
    }
    const sources = Array.isArray(map.sources) ? (map.sources as unknown[]) : [];
    const contents = Array.isArray(map.sourcesContent) ? (map.sourcesContent as unknown[]) : [];
    const sourceRoot = typeof map.sourceRoot === 'string' ? map.sourceRoot : '';
    sources.forEach((source, index) => {
      if (typeof source !== 'string' || /^[a-z][a-z0-9+.-]*:/i.test(source)) {
        problems.push(`${file}: source ${String(source)} is not a relative path`);
        return;
      }
      const resolved = posix.normalize(posix.join(posix.dirname(file), sourceRoot, source));
      if (resolved.startsWith('../') || resolved === '..') {
        problems.push(`${file}: source ${source} points outside the package`);
      } else if (FORBIDDEN.slice(0, 2).some(([pattern]) => pattern.test(resolved))) {
        problems.push(`${file}: source ${source} is test code`);
      }
      if (typeof contents[index] !== 'string' && !shipped.has(resolved)) {
        problems.push(`${file}: source ${source} has no sourcesContent and is not in the tarball`);
      }
    });
  }
  return problems;
}

/** Files that are missing, files that must not ship, and source maps that break the rule. */
export function fileProblems(root: string, files: readonly string[]): string[] {
  const problems = REQUIRED_FILES.filter((file) => !files.includes(file)).map(
    (file) => `${file} is missing`,
  );
  for (const file of files) {
    const forbidden = FORBIDDEN.find(([pattern]) => pattern.test(file));
    if (forbidden !== undefined) problems.push(`${file} is ${forbidden[1]}`);
  }
  if (files.includes('LICENSE')) {
    const license = readFileSync(join(root, 'LICENSE'), 'utf8');
    if (!license.startsWith('MIT License') || !license.includes(LICENSE_COPYRIGHT)) {
      problems.push(`LICENSE is not the MIT licence with "${LICENSE_COPYRIGHT}"`);
    }
  }
  return [...problems, ...sourceMapProblems(root, files)];
}

export const LICENSE_COPYRIGHT = 'Copyright (c) 2026 Keel contributors';
export const REPOSITORY_URL = 'https://github.com/keel-dev/keel';
/** What `engines.node` says in every published package: the Node lines the packed-install test runs. */
export const ENGINES_NODE = '>=20.19';

/** The package.json fields a published package must carry, as packed (`path`: its folder). */
export function manifestProblems(
  manifest: Manifest,
  path: string,
  files: readonly string[],
): string[] {
  const problems: string[] = [];
  const expect = (ok: boolean, problem: string) => {
    if (!ok) problems.push(problem);
  };
  expect(manifest.license === 'MIT', `license is ${manifest.license}, not MIT`);
  expect(
    manifest.repository?.type === 'git' &&
      manifest.repository.url === `git+${REPOSITORY_URL}.git` &&
      manifest.repository.directory === path,
    `repository is not { type: 'git', url: 'git+${REPOSITORY_URL}.git', directory: '${path}' }`,
  );
  expect(
    manifest.homepage === `${REPOSITORY_URL}/tree/main/${path}#readme`,
    `homepage is not ${REPOSITORY_URL}/tree/main/${path}#readme`,
  );
  expect(
    manifest.bugs?.url === `${REPOSITORY_URL}/issues`,
    `bugs.url is not ${REPOSITORY_URL}/issues`,
  );
  expect((manifest.keywords ?? []).length >= 3, 'fewer than three keywords');
  expect(manifest.engines?.['node'] === ENGINES_NODE, `engines.node is not ${ENGINES_NODE}`);
  expect((manifest.files ?? []).includes('LICENSE'), 'files does not list LICENSE');
  expect(
    manifest.publishConfig?.access === 'public' && manifest.publishConfig.provenance === true,
    'publishConfig is not { access: public, provenance: true } (releases come from CI)',
  );
  const ranges = { ...manifest.dependencies, ...manifest.peerDependencies };
  for (const [name, range] of Object.entries(ranges)) {
    expect(!range.startsWith('workspace:'), `${name}: ${range} was not replaced by a version`);
  }
  const shipped = new Set(files);
  const targets = [...Object.values(manifest.bin ?? {}), ...leafStrings(manifest.exports)];
  for (const target of targets) {
    const file = posix.normalize(target);
    if (file === '.' || shipped.has(file)) continue;
    problems.push(`${target} (bin or exports) is not in the tarball`);
  }
  return problems;
}

/** Every string value inside an `exports` map (its targets), however deep the conditions go. */
function leafStrings(value: unknown): string[] {
  if (typeof value === 'string') return value.includes('*') ? [] : [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(leafStrings);
}
