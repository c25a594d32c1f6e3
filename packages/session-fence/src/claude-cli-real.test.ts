/**
 * The real Claude Code CLI (`@anthropic-ai/claude-code`, devDependency) run against
 * `@keel/testing`'s loopback Anthropic endpoint: its transcripts, killed mid-tool and completed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../test/support';
import {
  claudeCliTranscriptHasAssistant,
  resolveClaudeCliTranscriptPath,
} from './claude-cli-transcript';
import { findOrphanedToolUses } from './find-orphaned-tool-uses';
import { getTranscriptFileStatus } from './get-transcript-file-status';

const claudeBin = fileURLToPath(new URL('../node_modules/.bin/claude', import.meta.url));
const mainModel = /opus|sonnet/;

let provider: MockProvider;
let home: string;
let cwd: string;
let cwdRoot: string;
let running: ChildProcess | undefined;

beforeEach(async () => {
  provider = await createMockProvider();
  home = await mkdtemp(join(tmpdir(), 'keel-fence-home-'));
  // Dots and underscores in the cwd check the project slug against what the CLI really writes.
  cwd = await realpath(await mkdtemp(join(tmpdir(), 'keel_fence.cwd-')));
  cwdRoot = cwd;
});
afterEach(async () => {
  if (running?.pid !== undefined && running.exitCode === null && running.signalCode === null) {
    try {
      process.kill(-running.pid, 'SIGKILL');
    } catch {}
  }
  running = undefined;
  await provider.close();
  await rm(home, { recursive: true, force: true });
  await rm(cwdRoot, { recursive: true, force: true });
});

/** Every process below `pid` (Linux /proc). The CLI starts its Bash tool in a process group of its own. */
async function descendantsOf(pid: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(parent, [...(parents.get(parent) ?? []), Number(name)]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of parents.get(queue.shift() ?? -1) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}

interface Run {
  child: ChildProcess;
  stdout(): string;
  exited: Promise<number | null>;
}

function startClaude(prompt: string): Run {
  return startClaudeArgs(['-p', prompt]);
}

function startClaudeArgs(args: string[], extraEnv: Record<string, string> = {}): Run {
  const child = spawn(
    claudeBin,
    [...args, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash'],
    {
      cwd,
      detached: true,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: home,
        ANTHROPIC_BASE_URL: provider.anthropicBaseUrl,
        ANTHROPIC_API_KEY: 'test',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running = child;
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.resume();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, exited };
}

/** The session id from the CLI's stream-json `system/init` event. */
function sessionIdOf(stdout: string): string | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const event = JSON.parse(line) as { type?: string; subtype?: string; session_id?: string };
      if (event.type === 'system' && event.subtype === 'init') return event.session_id;
    } catch {}
  }
  return undefined;
}

function transcriptOf(sessionId: string): string {
  return resolveClaudeCliTranscriptPath({
    projectsRoot: join(home, '.claude', 'projects'),
    cwd,
    sessionId,
  });
}

describe('transcripts written by the real Claude Code CLI', () => {
  it('reports the Bash tool_use of a CLI killed with SIGKILL while the tool runs, until a resume answers it', {
    timeout: 120_000,
  }, async () => {
    provider.enqueue({
      behavior: {
        type: 'ok',
        toolCalls: [
          {
            id: 'toolu_keel_wait_1',
            name: 'Bash',
            input: { command: 'timeout 97 tail -f /dev/null', description: 'wait' },
          },
        ],
      },
      match: { model: mainModel },
    });
    const run = startClaude('wait for a while');
    const sessionId = await waitFor(() => sessionIdOf(run.stdout()), {
      timeoutMs: 60_000,
      what: 'the init event',
    });
    const path = transcriptOf(sessionId);
    await waitFor(
      async () => {
        const text = await readFile(path, 'utf8').catch(() => '');
        return text.includes('"toolu_keel_wait_1"') && text.includes('"type":"tool_use"');
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'the tool_use line in the transcript' },
    );
    const pid = run.child.pid ?? 0;
    const tool = await waitFor(
      async () => {
        const below = await descendantsOf(pid);
        const commands = await Promise.all(
          below.map((child) => readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '')),
        );
        return commands.some((command) => command.startsWith('tail')) ? below : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'the Bash tool to run' },
    );
    process.kill(-pid, 'SIGKILL');
    killAll(tool);
    await run.exited;

    expect(await getTranscriptFileStatus(path)).toBe('present');
    expect(await findOrphanedToolUses(path, { format: 'claude-cli' })).toEqual([
      'toolu_keel_wait_1',
    ]);
    expect(await claudeCliTranscriptHasAssistant(path)).toBe(true);

    // Resumed, Claude Code 2.1.332 first answers the interrupted call itself (an is_error
    // tool_result), so the transcript has no trailing orphan any more.
    provider.enqueue({ behavior: { type: 'ok', text: 'Resumed.' }, match: { model: mainModel } });
    const resumed = startClaudeArgs(['--resume', sessionId, '-p', 'go on']);
    expect(await resumed.exited).toBe(0);
    const answers = (await readFile(path, 'utf8'))
      .split('\n')
      .filter((line) => line.includes('"tool_use_id":"toolu_keel_wait_1"'));
    expect(answers.length).toBeGreaterThan(0);
    expect(await findOrphanedToolUses(path, { format: 'claude-cli' })).toEqual([]);
  });

  it('finds nothing orphaned in a completed run with a tool call', {
    timeout: 120_000,
  }, async () => {
    provider.enqueue(
      {
        behavior: {
          type: 'ok',
          toolCalls: [
            {
              id: 'toolu_keel_echo_1',
              name: 'Bash',
              input: { command: 'echo hi', description: 'echo' },
            },
          ],
        },
        match: { model: mainModel },
      },
      { behavior: { type: 'ok', text: 'It printed hi.' }, match: { model: mainModel } },
    );
    // A working directory deep enough that the CLI cuts the project name and adds a hash.
    cwd = join(cwd, 'deep_dir.x'.repeat(25));
    await mkdir(cwd, { recursive: true });
    expect(cwd.replace(/[^A-Za-z0-9]/g, '-').length).toBeGreaterThan(200);
    const run = startClaude('run echo hi');
    expect(await run.exited).toBe(0);
    const sessionId = sessionIdOf(run.stdout());
    expect(sessionId).toBeDefined();
    const path = transcriptOf(sessionId ?? '');
    const text = await readFile(path, 'utf8');
    expect(text).toContain('"toolu_keel_echo_1"');
    expect(await findOrphanedToolUses(path, { format: 'claude-cli' })).toEqual([]);
    expect(await claudeCliTranscriptHasAssistant(path)).toBe(true);
  });

  it('sees no assistant record in a run that only got an API error', {
    timeout: 120_000,
  }, async () => {
    // The CLI writes a `<synthetic>` assistant line with the API error text; it is not a model turn.
    provider.enqueue({ behavior: mockFaults.overloaded(), match: { model: mainModel }, times: 5 });
    const run = startClaudeArgs(['-p', 'hi'], { CLAUDE_CODE_MAX_RETRIES: '0' });
    expect(await run.exited).not.toBe(0);
    const sessionId = sessionIdOf(run.stdout());
    expect(sessionId).toBeDefined();
    const path = transcriptOf(sessionId ?? '');
    expect(await getTranscriptFileStatus(path)).toBe('present');
    expect(await claudeCliTranscriptHasAssistant(path, { rescanDelayMs: 50 })).toBe(false);
    expect(await findOrphanedToolUses(path, { format: 'claude-cli' })).toEqual([]);
  });
});
