import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cleanEnvironment, runCommand } from './run-command';

/**
 * Runs an installed bin (`node_modules/.bin/<name>`, as a user's shell would, through its
 * shebang) and returns what proves it works. Bins without a check of their own must answer
 * `--help` with exit code 0.
 */
export async function exerciseBin(name: string, path: string, cwd: string): Promise<string> {
  switch (name) {
    case 'keel-mock-provider':
      return mockProviderBanner(path, cwd);
    case 'keel-fake-claude': {
      const result = await runCommand(
        path,
        ['-p', 'hi', '--output-format', 'stream-json', '--verbose'],
        {
          cwd,
          env: { HOME: cwd },
        },
      );
      const last = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as {
        type?: string;
        subtype?: string;
      };
      return `exit ${result.code}, ${last.type} ${last.subtype}`;
    }
    default: {
      const result = await runCommand(path, ['--help'], { cwd });
      return `exit ${result.code}`;
    }
  }
}

/** Starts `keel-mock-provider`, reads its banner up to the Anthropic line, stops it. */
async function mockProviderBanner(path: string, cwd: string): Promise<string> {
  const child = spawn(path, [], {
    cwd,
    env: cleanEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines: string[] = [];
  try {
    for await (const line of createInterface({ input: child.stdout })) {
      lines.push(line);
      if (line.includes('@anthropic-ai/sdk')) break;
    }
  } finally {
    child.kill('SIGTERM');
  }
  const code = await closed;
  return [
    ...lines.map((line) => line.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')),
    `exit ${code}`,
  ].join('\n');
}
