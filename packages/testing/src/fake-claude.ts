import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAKE_CLAUDE_LOG_ENV, FAKE_CLAUDE_SCRIPT_ENV } from './fake-claude-run';
import { fakeClaudeProjectDir } from './fake-claude-transcript';
import type { FakeClaudeLogEntry, FakeClaudeScenario } from './fake-claude-types';

/** Absolute path of the `keel-fake-claude` executable (`dist/fake-claude-cli.js`, with a shebang). */
export function fakeClaudePath(): string {
  return fileURLToPath(new URL('./fake-claude-cli.js', import.meta.url));
}

export interface FakeClaudeOptions {
  /** A scratch directory the fake owns: scenario, call log and `home/` go in it. */
  dir: string;
  scenario?: FakeClaudeScenario;
}

/** A fake CLI set up in a directory: pass `command` and `env` to whatever runs `claude`. */
export interface FakeClaude {
  /** The executable to run instead of `claude`. */
  readonly command: string;
  /** `HOME` of the fake: transcripts go to `<home>/.claude/projects/...`. */
  readonly home: string;
  /** `HOME`, `KEEL_FAKE_CLAUDE_SCRIPT` and `KEEL_FAKE_CLAUDE_LOG`. */
  readonly env: Record<string, string>;
  /** Replaces the scenario and restarts at its first turn. */
  setScenario(scenario: FakeClaudeScenario): void;
  /** The call log so far. */
  log(): FakeClaudeLogEntry[];
  /** The argv of each run so far. */
  calls(): string[][];
  /** Where the fake (like the real CLI) keeps the transcript of a session run in `cwd`. */
  transcriptPath(cwd: string, sessionId: string): string;
}

export function createFakeClaude(options: FakeClaudeOptions): FakeClaude {
  const home = join(options.dir, 'home');
  const scriptPath = join(options.dir, 'fake-claude-scenario.json');
  const logPath = join(options.dir, 'fake-claude-log.jsonl');
  mkdirSync(home, { recursive: true });
  const setScenario = (scenario: FakeClaudeScenario) => {
    writeFileSync(scriptPath, JSON.stringify(scenario));
    rmSync(`${scriptPath}.state`, { force: true });
  };
  setScenario(options.scenario ?? { turns: [{}] });
  const log = (): FakeClaudeLogEntry[] =>
    existsSync(logPath)
      ? readFileSync(logPath, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as FakeClaudeLogEntry)
      : [];
  return {
    command: fakeClaudePath(),
    home,
    env: { HOME: home, [FAKE_CLAUDE_SCRIPT_ENV]: scriptPath, [FAKE_CLAUDE_LOG_ENV]: logPath },
    setScenario,
    log,
    calls: () => log().flatMap((entry) => (entry.type === 'call' ? [entry.argv] : [])),
    transcriptPath: (cwd, sessionId) => join(fakeClaudeProjectDir(home, cwd), `${sessionId}.jsonl`),
  };
}
