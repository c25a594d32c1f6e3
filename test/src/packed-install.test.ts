/**
 * Every published package as a user meets it: `pnpm pack`ed, installed alone with plain `npm` in
 * an empty project (its tarball, the tarballs of the `@keel/*` packages it needs and the optional
 * peers a case picks — nothing else), a consumer script type-checked under `--strict` with
 * TypeScript 5.9 and 7 and run on every tested Node line. Each tarball is checked too: the files
 * it must hold and must not hold, its source maps, its package.json, and `attw`.
 *
 * npm, `tsc` and Node downloads take seconds when idle and minutes on a loaded 2-core machine:
 * the limits only catch a hang; nothing races a clock. Packs are made once, npm uses the user's
 * one cache (`--prefer-offline`), and the consumers run one after the other.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { casesFor, type PackedInstallCase, type RunContext } from './packed-install/cases';
import {
  type ConsumerProject,
  createConsumerProject,
  dependencyClosure,
  installedPackages,
  npmInstall,
} from './support/consumer-project';
import { type NodeRuntime, nodeRuntimes, TESTED_NODE_RANGES } from './support/node-runtimes';
import { type PackedPackage, packPackages } from './support/pack-workspace';
import { exerciseBin } from './support/package-bins';
import { runChecked, runCommand } from './support/run-command';
import {
  ENGINES_NODE,
  fileProblems,
  listFiles,
  manifestProblems,
} from './support/tarball-problems';
import { CONSUMER_TSCONFIG, consumerCompilers } from './support/typescript-compilers';
import {
  keelClosure,
  publishedPackages,
  REPOSITORY_ROOT,
  readManifest,
} from './support/workspace-packages';

const LIMIT_MS = 600_000;
const CONSUMERS = fileURLToPath(new URL('./packed-install/consumers/', import.meta.url));
const require = createRequire(import.meta.url);
const ATTW = join(
  dirname(require.resolve('@arethetypeswrong/cli/package.json')),
  'dist',
  'index.js',
);

/** What each bin must print (`exerciseBin`); others must answer `--help`. */
const BIN_PROOF: Record<string, RegExp> = {
  'keel-mock-provider':
    /^keel-mock-provider listening on http:\/\/127\.0\.0\.1:PORT\n {2}openai +baseURL: http:\/\/127\.0\.0\.1:PORT\/v1 .*\n {2}@anthropic-ai\/sdk +baseURL: http:\/\/127\.0\.0\.1:PORT .*\nexit 0$/,
  'keel-fake-claude': /^exit 0, result success$/,
};

const published = publishedPackages();
const cases = casesFor(published);
const compilers = consumerCompilers();

let root: string;
let packed: Map<string, PackedPackage>;
let runtimes: NodeRuntime[];
let mock: MockProvider;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'keel-packed-')));
  packed = await packPackages(published, join(root, 'tarballs'));
  runtimes = await nodeRuntimes();
  mock = await createMockProvider();
}, LIMIT_MS);

afterAll(async () => {
  await mock?.close();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
}, LIMIT_MS);

function tarballOf(name: string): PackedPackage {
  const entry = packed.get(name);
  if (entry === undefined) throw new Error(`${name} was not packed`);
  return entry;
}

describe('the published packages', () => {
  it('are every workspace package that is not private, Keel-scoped', () => {
    const names = published.map((entry) => entry.name);
    expect(names).toEqual(
      expect.arrayContaining(['@keel/spec', '@keel/transport', '@keel/testing', '@keel/gateway']),
    );
    for (const name of names) expect(name).toMatch(/^@keel\/[a-z-]+$/);
    for (const name of ['@keel/integration-tests', '@keel/readme-examples', '@keel/bench']) {
      expect(names).not.toContain(name);
    }
  });

  it(`say in engines what is tested: ${ENGINES_NODE}, run on Node ${TESTED_NODE_RANGES.join(', ')}`, () => {
    const floor = ENGINES_NODE.replace('>=', '');
    expect(TESTED_NODE_RANGES[0]).toBe(`${floor}.0`);
    expect(runtimes.map((runtime) => runtime.version.split('.')[0])).toEqual(
      expect.arrayContaining(['v20', 'v22', 'v24']),
    );
    expect(readManifest(REPOSITORY_ROOT).engines).toEqual({ node: ENGINES_NODE });
  });
});

describe.each(published)('the $name tarball', (entry) => {
  let contents: string;
  let files: string[];

  beforeAll(async () => {
    contents = join(root, 'contents', entry.path);
    mkdirSync(contents, { recursive: true });
    await runChecked('tar', ['-xzf', tarballOf(entry.name).tarball, '-C', contents], { cwd: root });
    contents = join(contents, 'package');
    files = listFiles(contents);
  }, LIMIT_MS);

  it('holds README, LICENSE and CHANGELOG; no tests, fixtures, sources or outside source maps', () => {
    expect(files).toContain('dist/index.js');
    expect(fileProblems(contents, files)).toEqual([]);
  });

  it('says where it comes from and what it needs (repository, homepage, bugs, keywords, engines)', () => {
    const manifest = JSON.parse(readFileSync(join(contents, 'package.json'), 'utf8'));
    expect(manifestProblems(manifest, entry.path, files)).toEqual([]);
  });

  it('passes attw (ESM only)', { timeout: LIMIT_MS }, async () => {
    const result = await runCommand(
      process.execPath,
      [ATTW, tarballOf(entry.name).tarball, '--profile', 'esm-only', '--format', 'ascii'],
      { cwd: root },
    );
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  });
});

/** The consumer's sources: the case's files, or one generated from the package's name. */
function writeConsumer(project: ConsumerProject, testCase: PackedInstallCase): string {
  const files = testCase.files ?? [];
  for (const file of files) cpSync(join(CONSUMERS, file), join(project.directory, file));
  if (files.length === 0) {
    writeFileSync(
      join(project.directory, 'generated.ts'),
      `import * as exported from '${testCase.packageName}';\n\nexport async function consume(): Promise<unknown> {\n  return Object.keys(exported).sort();\n}\n`,
    );
  }
  const compilerOptions = { ...CONSUMER_TSCONFIG.compilerOptions, types: testCase.types ?? [] };
  writeFileSync(
    join(project.directory, 'tsconfig.json'),
    JSON.stringify({ ...CONSUMER_TSCONFIG, compilerOptions }, null, 2),
  );
  writeFileSync(
    join(project.directory, 'run-consumer.mjs'),
    [
      '// Runs the consumer with the input the test gives and prints its report as JSON.',
      "const { consume } = await import(process.env.KEEL_CONSUMER_ENTRY ?? '');",
      "const report = await consume(JSON.parse(process.env.KEEL_CONSUMER_INPUT ?? '{}'));",
      'process.stdout.write(JSON.stringify(report));',
      '',
    ].join('\n'),
  );
  return `./out/${(files[0] ?? 'generated.ts').replace(/\.ts$/, '.js')}`;
}

/** What a generated consumer must report: the runtime exports of the workspace build. */
async function workspaceExports(name: string): Promise<string[]> {
  const entry = published.find((candidate) => candidate.name === name);
  if (entry === undefined) throw new Error(`${name} is not published`);
  const main = JSON.stringify(entry.manifest.exports?.['.']).match(/"import":"([^"]+)"/)?.[1];
  if (main === undefined) throw new Error(`${name} has no exports['.'].import`);
  const module = (await import(pathToFileURL(join(entry.directory, main)).href)) as object;
  return Object.keys(module).sort();
}

describe.each(cases)('$title, installed alone with npm', (testCase) => {
  let project: ConsumerProject;
  let entryFile: string;
  const keelPackages = keelClosure(testCase.packageName, published);

  beforeAll(async () => {
    project = createConsumerProject(join(root, 'consumers', testCase.title.replace(/\W+/g, '-')));
    await npmInstall(project, [
      ...keelPackages.map((name) => tarballOf(name).tarball),
      ...(testCase.extras ?? []),
    ]);
    entryFile = writeConsumer(project, testCase);
  }, LIMIT_MS);

  it('holds its @keel packages from the tarballs and only the third-party packages it needs', () => {
    const installed = installedPackages(project);
    const keel = installed.filter((entry) => entry.name.startsWith('@keel/'));
    expect(keel.map((entry) => entry.name).sort()).toEqual(keelPackages);
    for (const entry of keel) expect(entry.resolved, entry.name).toMatch(/^file:.*\.tgz$/);

    const thirdParty = [...new Set(installed.map((entry) => entry.name))]
      .filter((name) => !name.startsWith('@keel/'))
      .sort();
    const wanted = (testCase.extras ?? []).map((extra) => extra.replace(/(.)@[^@]*$/, '$1'));
    const declared = keel
      .flatMap((entry) => entry.dependencies)
      .filter((name) => !name.startsWith('@keel/'));
    expect(thirdParty).toEqual(dependencyClosure(installed, [...wanted, ...declared]));
    if (testCase.zeroThirdParty) expect(thirdParty).toEqual([]);
  });

  it.each(compilers)(
    'type-checks the consumer under --strict with TypeScript $version (no skipLibCheck; Node types only where the case names them)',
    { timeout: LIMIT_MS },
    async (compiler) => {
      const result = await runCommand(
        process.execPath,
        [compiler.tsc, '-p', '.', '--strict', '--noEmit'],
        {
          cwd: project.directory,
        },
      );
      expect(`${result.stdout}${result.stderr}`).toBe('');
      expect(result.code).toBe(0);
    },
  );

  it('runs the consumer on every tested Node line and it reports what the package did', {
    timeout: LIMIT_MS,
  }, async () => {
    const [emitter] = compilers;
    await runChecked(process.execPath, [emitter?.tsc ?? '', '-p', '.'], { cwd: project.directory });
    const expectedReports: unknown[] = [];
    const reports: unknown[] = [];
    for (const runtime of runtimes) {
      const context: RunContext = {
        mock,
        model: `packed-${testCase.title.replace(/\W+/g, '-')}-${runtime.version}`,
        scratch: mkdtempSync(join(root, 'run-')),
      };
      const input = testCase.prepare?.(context) ?? {};
      const result = await runCommand(runtime.path, ['run-consumer.mjs'], {
        cwd: project.directory,
        env: { KEEL_CONSUMER_ENTRY: entryFile, KEEL_CONSUMER_INPUT: JSON.stringify(input) },
      });
      expect(result.code, `${runtime.version}: ${result.stderr}`).toBe(0);
      reports.push({ node: runtime.version, report: JSON.parse(result.stdout) });
      const expected =
        testCase.files === undefined
          ? await workspaceExports(testCase.packageName)
          : testCase.expected(context);
      expectedReports.push({ node: runtime.version, report: expected });
      testCase.verify?.(context);
    }
    expect(reports).toEqual(expectedReports);
  });

  const bins = Object.keys(
    published.find((entry) => entry.name === testCase.packageName)?.manifest.bin ?? {},
  );
  if (bins.length > 0) {
    it(`starts ${bins.join(' and ')} from node_modules/.bin`, { timeout: LIMIT_MS }, async () => {
      for (const bin of bins) {
        const path = join(project.directory, 'node_modules', '.bin', bin);
        expect(await exerciseBin(bin, path, project.directory), bin).toMatch(
          BIN_PROOF[bin] ?? /^exit 0$/,
        );
      }
    });
  }
});
