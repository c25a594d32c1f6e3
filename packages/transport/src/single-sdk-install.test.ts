/**
 * `@keel/transport` installed with only ONE of its optional peer SDKs, for real: each case builds
 * a throwaway consumer project holding copies (not links) of the freshly built transport, its
 * workspace dependencies and exactly one SDK with that SDK's own dependencies. A child `node`
 * streams a reply from the loopback mock provider and asks for the other API; the workspace's
 * `tsc` type-checks a strict consumer without `skipLibCheck`.
 */
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsumerProject,
  createConsumerProject,
  findPackageDirectory,
  installBuiltPackage,
  installPackageCopy,
} from './__fixtures__/consumer-project';
import type { TransportApi, TransportEvent } from './types';

const packageDirectory = fileURLToPath(new URL('..', import.meta.url));
const consumerScript = fileURLToPath(
  new URL('./__fixtures__/single-sdk-consumer.mjs', import.meta.url),
);

interface SingleSdkCase {
  sdk: 'openai' | '@anthropic-ai/sdk';
  /** The API served by the installed SDK. */
  api: TransportApi;
  otherSdk: 'openai' | '@anthropic-ai/sdk';
  /** APIs that need the SDK that is not installed. */
  otherApis: TransportApi[];
  baseUrl(mock: MockProvider): string;
  /** TypeScript that builds a real client of the installed SDK. */
  clientSource: string;
}

const cases: SingleSdkCase[] = [
  {
    sdk: 'openai',
    api: 'openai-chat',
    otherSdk: '@anthropic-ai/sdk',
    otherApis: ['anthropic-messages'],
    baseUrl: (mock) => mock.openaiBaseUrl,
    clientSource: `import OpenAI from 'openai';
const client = new OpenAI({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9/v1' });
const sdkTransports: Transport[] = [
  createTransport({ api: 'openai-chat', model: 'm', client }),
  createTransport({ api: 'openai-responses', model: 'm', client }),
  createTransport({ api: 'openai-chat', model: 'm', loadSdk: () => import('openai') }),
];`,
  },
  {
    sdk: '@anthropic-ai/sdk',
    api: 'anthropic-messages',
    otherSdk: 'openai',
    otherApis: ['openai-chat', 'openai-responses'],
    baseUrl: (mock) => mock.anthropicBaseUrl,
    clientSource: `import Anthropic from '@anthropic-ai/sdk';
const client = new Anthropic({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9' });
const sdkTransports: Transport[] = [
  createTransport({ api: 'anthropic-messages', model: 'm', client }),
  createTransport({ api: 'anthropic-messages', model: 'm', loadSdk: () => import('@anthropic-ai/sdk') }),
];`,
  },
];

/** A strict consumer of the public types: real SDK client in, the other API still nameable. */
function consumerSource(testCase: SingleSdkCase): string {
  return `${testCase.clientSource}
import { createTransport, MissingSdkError, type Transport, type TransportEvent } from '@keel/transport';

const otherTransports: Transport[] = [
${testCase.otherApis.map((api) => `  createTransport({ api: '${api}', model: 'm' }),`).join('\n')}
];
// @ts-expect-error -- not an API: proves the options are typed, not \`any\`.
createTransport({ api: 'not-an-api', model: 'm' });

export async function firstText(transport: Transport): Promise<string> {
  for await (const event of transport.stream({ messages: [{ role: 'user', content: 'Hi' }] })) {
    const typed: TransportEvent = event;
    if (typed.type === 'text-delta') return typed.text;
  }
  return '';
}
export const all: Transport[] = [...sdkTransports, ...otherTransports];
export const isMissingSdk = (error: unknown): boolean => MissingSdkError.isInstance(error);
`;
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    // Only PATH is inherited, so nothing from the workspace (NODE_OPTIONS, NODE_PATH) leaks in.
    const child = spawn(process.execPath, args, {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The file a workspace tool's `bin` entry points at (run with this `node`). */
function binPath(packageName: string, binName: string): string {
  const directory = findPackageDirectory(packageName, packageDirectory);
  const manifest = readManifest(directory);
  const bin = manifest.bin?.[binName];
  if (bin === undefined) throw new Error(`${packageName} has no bin named ${binName}.`);
  return join(directory, bin);
}

function readManifest(directory: string): {
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
} {
  return JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
}

/** What the consumer script reports. */
interface ConsumerReport {
  events: TransportEvent[];
  missing: Array<{
    api: string;
    thrown: boolean;
    name?: string;
    isMissingSdkError?: boolean;
    packageName?: string;
    message?: string;
  }>;
  resolved: { transport: string | null; sdk: string | null; otherSdk: string | null };
}

let mock: MockProvider | undefined;
let root: string | undefined;
let transportDist: string;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'keel-single-sdk-')));
  mock = await createMockProvider();
  // Build the current source, so the check never runs against a stale `dist/`.
  transportDist = join(root, 'transport-dist');
  const build = await run([binPath('tsup', 'tsup'), '--out-dir', transportDist], packageDirectory, {
    HOME: process.env['HOME'] ?? root,
  });
  if (build.code !== 0) throw new Error(`tsup failed:\n${build.stdout}\n${build.stderr}`);
}, 180_000);

afterAll(async () => {
  await mock?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe.each(cases)('@keel/transport installed with only $sdk', (testCase) => {
  let project: ConsumerProject;

  beforeAll(() => {
    if (root === undefined) throw new Error('no temporary root');
    project = createConsumerProject(join(root, testCase.sdk.replace(/[@/]/g, '_')));
    installBuiltPackage(project, {
      name: '@keel/transport',
      packageDirectory,
      distDirectory: transportDist,
    });
    for (const name of ['spec', 'error-classification', 'session-fence']) {
      installBuiltPackage(project, {
        name: `@keel/${name}`,
        packageDirectory: join(packageDirectory, '..', name),
      });
    }
    installPackageCopy(project, testCase.sdk, packageDirectory);
    cpSync(consumerScript, join(project.directory, 'main.mjs'));
    writeFileSync(join(project.directory, 'consumer.ts'), consumerSource(testCase));
  });

  it('holds that SDK with its own dependencies, and not the other SDK', () => {
    const modules = join(project.directory, 'node_modules');
    const sdkDirectory = join(modules, testCase.sdk);
    expect(lstatSync(sdkDirectory).isSymbolicLink()).toBe(false);
    for (const dependency of Object.keys(readManifest(sdkDirectory).dependencies ?? {})) {
      expect(existsSync(join(modules, dependency, 'package.json')), dependency).toBe(true);
    }
    expect(existsSync(join(modules, testCase.otherSdk))).toBe(false);
  });

  it(`streams ${testCase.api} in a real node process; the other API names ${testCase.otherSdk}`, async () => {
    const provider = mock as MockProvider;
    provider.reset();
    provider.enqueue({
      type: 'ok',
      text: 'Hello from a single-SDK install.',
      usage: { inputTokens: 11, outputTokens: 6 },
    });
    const finished = await run(['main.mjs'], project.directory, {
      KEEL_API: testCase.api,
      KEEL_BASE_URL: testCase.baseUrl(provider),
      KEEL_OTHER_APIS: testCase.otherApis.join(','),
      KEEL_SDK: testCase.sdk,
      KEEL_OTHER_SDK: testCase.otherSdk,
    });
    expect(finished.code, finished.stderr).toBe(0);
    const report = JSON.parse(finished.stdout) as ConsumerReport;

    const inProject = `${pathToFileURL(project.directory).href}/node_modules/`;
    expect(report.resolved.transport?.startsWith(`${inProject}@keel/transport/`)).toBe(true);
    expect(report.resolved.sdk?.startsWith(`${inProject}${testCase.sdk}/`)).toBe(true);
    expect(report.resolved.otherSdk).toBeNull();

    const text = report.events.map((event) => (event.type === 'text-delta' ? event.text : ''));
    expect(text.join('')).toBe('Hello from a single-SDK install.');
    expect(report.events.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 11, outputTokens: 6 },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(provider.requests.map((request) => request.api)).toEqual([testCase.api]);

    expect(report.missing).toEqual(
      testCase.otherApis.map((api) => ({
        api,
        thrown: true,
        name: 'MissingSdkError',
        isMissingSdkError: true,
        packageName: testCase.otherSdk,
        message: expect.stringContaining(`npm install ${testCase.otherSdk}`),
      })),
    );
  });

  it('type-checks a strict consumer without skipLibCheck', async () => {
    const finished = await run(
      [
        binPath('typescript', 'tsc'),
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        'false',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        'consumer.ts',
      ],
      project.directory,
    );
    expect(`${finished.stdout}${finished.stderr}`).toBe('');
    expect(finished.code).toBe(0);
  });
});
