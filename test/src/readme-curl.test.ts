/**
 * The root README's `curl` examples, run as printed (only the address changed) against the demo
 * gateway the README's first command starts: each answer must match what the comment under it says.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

const run = promisify(execFile);
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const block = /```bash\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Try it')))?.[1] ?? '';
/** Each command (backslash continuations joined) with the comment lines that follow it. */
const examples = block
  .replace(/\\\n\s*/g, '')
  .split('\n')
  .reduce<Array<{ command: string; expect: string[] }>>((list, line) => {
    if (line.startsWith('curl ')) list.push({ command: line, expect: [] });
    else if (line.startsWith('# ')) list.at(-1)?.expect.push(line.slice(2));
    return list;
  }, []);

let gateway: GatewayProcess;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway.stop();
  await removeDir(gateway.dir);
});

describe('the README curl examples', () => {
  it('are there', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
  });

  it.each(examples.map((example, index) => [index, example] as const))(
    'example %i answers as its comment says',
    async (_index, example) => {
      const command = example.command.replaceAll('http://127.0.0.1:7420', gateway.url);
      const { stdout } = await run('bash', ['-c', command]);
      for (const expectation of example.expect) {
        if (expectation.startsWith('{')) {
          // A JSON answer: every key shown is there, with the value shown up to each `…`.
          const answer = JSON.parse(stdout) as Record<string, unknown>;
          for (const [, key, value] of expectation.matchAll(/"(\w+)":"([^"]*)"/g)) {
            const pattern = new RegExp(
              `^${(value ?? '')
                .split('…')
                .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
                .join('.*')}$`,
            );
            expect(String(answer[key as string]), key).toMatch(pattern);
          }
        } else {
          // A stream: the events named appear in this order.
          const names = [...expectation.matchAll(/event: ([\w-]+)/g)].map((match) => match[1]);
          let at = 0;
          for (const name of names) {
            at = stdout.indexOf(`event: ${name}`, at);
            expect(at, `event ${name}`).toBeGreaterThanOrEqual(0);
          }
        }
      }
      if (example.expect.length === 0) expect(() => JSON.parse(stdout)).not.toThrow();
    },
  );
});
