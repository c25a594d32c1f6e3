import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

/** The `keel-mock-provider` bin as package.json declares it, run as an executable (its shebang). */
const packageJson = JSON.parse(
  readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'),
) as { bin: Record<string, string> };
const binPath = packageJson.bin['keel-mock-provider'];
const cliPath = fileURLToPath(new URL(`../${binPath ?? 'missing-bin'}`, import.meta.url));
let directory: string;
/** Every scratch directory a test made, removed after it. */
const directories: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(() => {
  if (!existsSync(cliPath)) throw new Error(`build first: ${cliPath} is missing (pnpm build)`);
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const made of directories.splice(0)) await rm(made, { recursive: true, force: true });
});

function start(args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(cliPath, args, { stdio: 'pipe' });
  children.push(child);
  return child;
}

function exited(
  child: ChildProcessWithoutNullStreams,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; stdout: string }> {
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr, stdout })),
  );
}

function urlLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(buffer);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('close', (code) => reject(new Error(`exited with ${code} before printing its URL`)));
  });
}

/** The base URLs the banner prints for each SDK, read once both lines are out. */
function sdkBaseUrls(
  child: ChildProcessWithoutNullStreams,
): Promise<{ openai: string; anthropic: string }> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const openai = /^ +openai +baseURL: (\S+) .*\n/m.exec(buffer)?.[1];
      const anthropic = /^ +@anthropic-ai\/sdk +baseURL: (\S+) .*\n/m.exec(buffer)?.[1];
      if (openai !== undefined && anthropic !== undefined) resolve({ openai, anthropic });
    });
    child.on('close', (code) => reject(new Error(`exited with ${code} before its base URLs`)));
  });
}

async function scriptFile(content: unknown): Promise<string> {
  directory = await mkdtemp(join(tmpdir(), 'keel-mock-cli-'));
  directories.push(directory);
  const path = join(directory, 'script.json');
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('keel-mock-provider CLI', () => {
  it('serves a script with a regex model match, then exits 0 on SIGTERM', async () => {
    const path = await scriptFile([
      {
        behavior: { type: 'ok', text: 'from the script' },
        match: { model: { regex: '^claude-' } },
      },
      { type: 'http-error', status: 529, errorType: 'overloaded_error' },
    ]);
    const child = start(['--port', '0', '--script', path]);
    const done = exited(child);
    const url = await urlLine(child);
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0 });
    await expect(
      openai.chat.completions.create({
        model: 'gpt-x',
        messages: [{ role: 'user', content: 'q' }],
      }),
    ).rejects.toMatchObject({ status: 529 });
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'claude-x',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'q' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'from the script' }]);
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);
  });

  it('prints the base URL each SDK needs, and each works with its real client', async () => {
    const child = start(['--port', '0']);
    const done = exited(child);
    const [url, printed] = await Promise.all([urlLine(child), sdkBaseUrls(child)]);
    expect(printed).toEqual({ openai: `${url}/v1`, anthropic: url });
    const openai = new OpenAI({ apiKey: 'k', baseURL: printed.openai, maxRetries: 0 });
    const chat = await openai.chat.completions.create({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(chat.choices[0]?.message.content).toMatch(/^Mock reply [0-9a-f]{8}: you said "hello"/);
    const response = await openai.responses.create({ model: 'gpt-x', input: 'hello' });
    expect(response.output_text).toBe(chat.choices[0]?.message.content);
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: printed.anthropic, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'claude-x',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: response.output_text }]);
    // The environment variables the banner names, read by each SDK when no baseURL is given.
    vi.stubEnv('OPENAI_BASE_URL', printed.openai);
    vi.stubEnv('ANTHROPIC_BASE_URL', printed.anthropic);
    try {
      const fromEnvOpenai = new OpenAI({ apiKey: 'k', maxRetries: 0 });
      const fromEnvAnthropic = new Anthropic({ apiKey: 'k', maxRetries: 0 });
      expect(
        (await fromEnvOpenai.responses.create({ model: 'g', input: 'hello' })).output_text,
      ).toBe(response.output_text);
      const fromEnv = await fromEnvAnthropic.messages.create({
        model: 'c',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hello' }],
      });
      expect(fromEnv.content).toEqual(message.content);
    } finally {
      vi.unstubAllEnvs();
    }
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);
  });

  it('--chaos-seed injects seeded faults in scope only, and prints what it injected on exit', async () => {
    const child = start([
      '--chaos-seed',
      '7',
      '--chaos-rates',
      'server-error=1',
      '--chaos-model',
      'claude-primary',
    ]);
    const done = exited(child);
    const url = await urlLine(child);
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });
    const ask = (model: string) =>
      anthropic.messages.create({
        model,
        max_tokens: 5,
        messages: [{ role: 'user', content: 'q' }],
      });
    const error = await ask('claude-primary').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect([500, 502, 503]).toContain((error as InstanceType<typeof Anthropic.APIError>).status);
    expect((await ask('claude-fallback')).type).toBe('message');
    child.kill('SIGTERM');
    const { code, stdout } = await done;
    expect(code).toBe(0);
    expect(stdout).toContain('  chaos: seed 7, server-error=1; only for model claude-primary\n');
    const stats = /^keel-mock-provider chaos stats: (.*)$/m.exec(stdout)?.[1];
    expect(JSON.parse(stats ?? 'null')).toMatchObject({
      requests: 1,
      passed: 0,
      faults: { 'server-error': 1, overloaded: 0 },
    });
  });

  it('--demo serves the demo model: a current_time call, then a sentence with its result', async () => {
    const child = start(['--demo']);
    const done = exited(child);
    const url = await urlLine(child);
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0 });
    const tools = [
      { type: 'function' as const, function: { name: 'current_time', parameters: {} } },
    ];
    const question = { role: 'user' as const, content: 'What time is it?' };
    const first = await openai.chat.completions.create({
      model: 'gpt-x',
      messages: [question],
      tools,
    });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(call).toMatchObject({ type: 'function', function: { name: 'current_time' } });
    const second = await openai.chat.completions.create({
      model: 'gpt-x',
      messages: [
        question,
        { role: 'assistant', content: null, tool_calls: first.choices[0]?.message.tool_calls },
        { role: 'tool', tool_call_id: call?.id ?? '', content: '09:00 UTC' },
      ],
      tools,
    });
    expect(second.choices[0]?.message.content).toBe('The current time is 09:00 UTC.');
    child.kill('SIGTERM');
    const { code, stdout } = await done;
    expect(code).toBe(0);
    expect(stdout).toContain('  demo model: current_time and roll_dice');
  });

  it('listens on the requested port and exits 0 on SIGINT', async () => {
    const probe = start(['--port', '0']);
    const probeUrl = await urlLine(probe);
    const probeDone = exited(probe);
    probe.kill('SIGINT');
    expect((await probeDone).code).toBe(0);
    const port = new URL(probeUrl).port;
    const child = start([`--port=${port}`]);
    const done = exited(child);
    expect(await urlLine(child)).toBe(`http://127.0.0.1:${port}`);
    const head = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    child.kill('SIGINT');
    expect((await done).code).toBe(0);
  });

  it('--require-api-key answers other keys with a 401', async () => {
    const child = start(['--require-api-key', 'sk-right']);
    const done = exited(child);
    const url = await urlLine(child);
    const ask = (apiKey: string) =>
      new Anthropic({ apiKey, baseURL: url, maxRetries: 0 }).messages.create({
        model: 'claude-x',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'q' }],
      });
    await expect(ask('sk-wrong')).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    expect((await ask('sk-right')).type).toBe('message');
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);
  });

  it.each([
    [['--port', 'abc'], /--port must be an integer/],
    [['--port', '70000'], /--port must be an integer/],
    [['--port'], /--port needs a value/],
    [['--bogus'], /unknown argument "--bogus"/],
    [['--chaos-seed', '1', '--chaos-rates', 'hang=2'], /chaos.rates.hang must be a number/],
  ])('rejects %j with exit code 2 and a clear message', async (args, message) => {
    const { code, stderr } = await exited(start(args));
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).toContain('Usage: keel-mock-provider');
  });

  it('rejects a bad script with exit code 2 naming the problem', async () => {
    const notArray = await scriptFile({ type: 'ok' });
    const first = await exited(start(['--script', notArray]));
    expect(first.code).toBe(2);
    expect(first.stderr).toContain('script must be a JSON array');
    const missing = await exited(start(['--script', join(directory, 'nope.json')]));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read script');
    const badType = await scriptFile([{ type: 'ok' }, { type: 'explode' }]);
    const third = await exited(start(['--script', badType]));
    expect(third.code).toBe(2);
    expect(third.stderr).toContain('script[1]: unknown behaviour type "explode"');
  });

  it('prints usage for --help', async () => {
    const { code, stdout } = await exited(start(['--help']));
    expect(code).toBe(0);
    expect(stdout).toContain('--script file.json');
  });
});
