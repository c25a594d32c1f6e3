/**
 * Scenario format of the fake Claude Code CLI (`keel-fake-claude`). A scenario is a JSON file
 * named by `KEEL_FAKE_CLAUDE_SCRIPT`; each run of the fake plays the next turn of it.
 */

/** One thing the fake does during a turn, in order. */
export type FakeClaudeStep =
  /** An assistant text block (stdout `assistant` message and one transcript line). */
  | { type: 'text'; text: string }
  /**
   * An assistant `tool_use` block, then (unless `hang`) its `tool_result` as a `user` line.
   * With `hang`, the fake starts a child process in its own session (like the CLI's Bash tool),
   * writes the tool_use line and waits until it is killed.
   */
  | {
      type: 'tool_use';
      id?: string;
      name: string;
      input?: Record<string, unknown>;
      result?: string;
      isError?: boolean;
      hang?: boolean;
    }
  /** Write text to stderr. */
  | { type: 'stderr'; text: string }
  /** Go silent (no output at all) until killed. */
  | { type: 'silence' }
  /** Exit at once with this code, without a `result` message. */
  | { type: 'exit'; code: number }
  /**
   * What the real CLI does on an API error: a synthetic assistant message
   * (`model: "<synthetic>"`, text `API Error: <status> <message>`), an error `result` with
   * `api_error_status`, exit code 1.
   */
  | { type: 'api-error'; status: number; errorType?: string; message: string };

export interface FakeClaudeResult {
  isError?: boolean;
  /** Default `success`; the CLI also uses `error_during_execution`, `error_max_turns`. */
  subtype?: string;
  /** Default: the turn's text joined. */
  text?: string;
  apiErrorStatus?: number;
  apiErrorType?: string;
  errors?: string[];
}

export interface FakeClaudeTurn {
  /** Session id of a fresh session (ignored with `--resume`); default a random UUID. */
  sessionId?: string;
  /** Default `--model`, else `claude-fake-1`. */
  model?: string;
  steps?: FakeClaudeStep[];
  /** The closing `result` message; `false` for none. Default: success. */
  result?: FakeClaudeResult | false;
  /** Exit code after the result; default 0 (1 for an error result). */
  exitCode?: number;
  /** Leave out the `system/init` message. */
  skipInit?: boolean;
  /**
   * On SIGTERM: `exit` (default) answers a running tool with an error `tool_result`
   * ("Exit code 143"), as the real CLI does, and exits 143; `ignore` keeps running.
   */
  onSigterm?: 'exit' | 'ignore';
  /** With `onSigterm: 'exit'`: how long the fake takes to clean up before it answers and exits. */
  sigtermCleanupMs?: number;
  usage?: { inputTokens: number; outputTokens: number };
}

export interface FakeClaudeScenario {
  /** Played one per run, in order; the last one repeats. */
  turns: FakeClaudeTurn[];
}

/** One line of the call log (`KEEL_FAKE_CLAUDE_LOG`). */
export type FakeClaudeLogEntry =
  | {
      type: 'call';
      pid: number;
      argv: string[];
      /** The prompt the run answered: its argument, else (like the real CLI with `-p`) stdin. */
      prompt: string;
      cwd: string;
      home: string;
      turn: number;
      /** Names (never values) of the environment variables the fake saw. */
      envNames: string[];
      /** `CLAUDE_CODE_MAX_RETRIES`, when set. */
      maxRetries?: string;
    }
  /** A child the fake started for a hanging tool. */
  | { type: 'child'; pid: number; parentPid: number }
  | { type: 'signal'; pid: number; signal: string };
