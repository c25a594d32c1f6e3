/**
 * The root README's "Use Keel from any OpenAI or Anthropic client": its commands (curl and the real
 * Claude Code CLI) and its SDK example run as printed (only the address changed) against the demo
 * gateway the README's first command starts, each answer matching the comment under it.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

const run = promisify(execFile);
const README = 'http://127.0.0.1:7420';
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## Use Keel from any OpenAI or Anthropic client'));
const shell = /```bash\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
const script = /```js\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
/** Each command (backslash continuations joined) with the comment lines that follow it. */
const commands = shell
  .replace(/\\\n\s*/g, '')
  .split('\n')
  .reduce<Array<{ command: string; expect: string[] }>>((list, line) => {
    if (line.startsWith('# ')) list.at(-1)?.expect.push(line.slice(2));
    else if (line.trim() !== '') list.push({ command: line, expect: [] });
    return list;
  }, []);

/** `…` in a README comment stands for anything. */
function pattern(shown: string): RegExp {
  const parts = shown.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`);
}

let gateway: GatewayProcess;
let home: string;
beforeAll(async () => {
  gateway = await startGateway();
  home = await mkdtemp(join(tmpdir(), 'keel-readme-clients-'));
});
afterAll(async () => {
  await gateway.stop();
  await removeDir(gateway.dir);
  await rm(home, { recursive: true, force: true });
});

describe('the README client examples', () => {
  it('are there: curl for both wires and the models list, Claude Code, and both SDKs', () => {
    expect(commands.map((example) => example.command.split(' ')[0])).toEqual([
      'curl',
      'curl',
      'curl',
      'ANTHROPIC_BASE_URL=http://127.0.0.1:7420',
    ]);
    expect(script).toContain("from 'openai'");
    expect(script).toContain("from '@anthropic-ai/sdk'");
  });

  it.each(commands.map((example, index) => [index, example] as const))(
    'command %i answers as its comment says',
    async (_index, example) => {
      const command = example.command.replaceAll(README, gateway.url);
      const { stdout } = await run('bash', ['-c', command], {
        // The CLI as installed in this workspace, offline, in a home of its own.
        env: {
          ...process.env,
          PATH: `${new URL('../node_modules/.bin', import.meta.url).pathname}:${process.env['PATH']}`,
          HOME: home,
          DISABLE_TELEMETRY: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        timeout: 120_000,
      });
      for (const expectation of example.expect) {
        if (expectation.startsWith('{')) {
          // A JSON answer: every top-level key shown is there, with the value shown.
          const answer = JSON.parse(stdout) as Record<string, unknown>;
          for (const [, key, value] of expectation.matchAll(/"(\w+)":"([^"]*)"/g)) {
            expect(String(answer[key as string]), key).toMatch(pattern(value ?? ''));
          }
        } else {
          expect(stdout.trim()).toMatch(pattern(expectation));
        }
      }
    },
    150_000,
  );

  it('the SDK example prints what its comments say', async () => {
    const expected = [...script.matchAll(/\/\/ => (.*)$/gm)].map((match) => match[1]);
    expect(expected).toHaveLength(2);
    // Beside the test workspace's own modules, so that `openai` and `@anthropic-ai/sdk` resolve.
    const file = new URL(`../readme-clients-${process.pid}.mjs`, import.meta.url);
    await writeFile(file, script.replaceAll(README, gateway.url));
    try {
      const { stdout } = await run(process.execPath, [file.pathname], { timeout: 60_000 });
      expect(stdout.trim().split('\n')).toEqual(expected);
    } finally {
      await rm(file, { force: true });
    }
  });
});
