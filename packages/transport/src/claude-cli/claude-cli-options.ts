import type { BindingInvalidReason, ModelRequest } from '@keel/spec';
import type { TransportHooks } from '../types';
import type { BindingStore } from './binding-store';
import type { ReseedContext } from './build-cli-prompt';

/** Handed to `reseed.load` when a fresh CLI session needs the prior conversation. */
export interface ReseedLoadContext {
  /** The gateway session (`ModelCallOptions.sessionId`), when given. */
  sessionId: string | undefined;
  request: ModelRequest;
  /** Why the CLI session is fresh: a dropped binding, or `unbound` (there was none). */
  reason: BindingInvalidReason | 'unbound';
  signal: AbortSignal | undefined;
}

export interface ClaudeCliReseedOptions {
  /** Budget for the reseeded context (summary + recent messages) in characters; default 24,000. */
  maxChars?: number;
  /**
   * Loads the caller's own transcript for a fresh CLI session: a compaction summary (it goes
   * first) and the messages after it. Default: no summary, and the request's messages before the
   * ones still to answer. Return `undefined` to reseed nothing.
   */
  load?(context: ReseedLoadContext): ReseedContext | undefined | Promise<ReseedContext | undefined>;
}

export interface ClaudeCliTransportOptions {
  /** Provider id for hooks and errors; default `claude-cli`. */
  provider?: string;
  /** The `claude` executable; default `claude` (looked up on `PATH`). */
  command?: string;
  /** `--model`, unless the request names one. */
  model?: string;
  /** `--allowedTools`, one entry per tool rule (e.g. `Bash`, `Bash(git *)`). */
  allowedTools?: string[];
  /** Further arguments, placed before `--allowedTools` and the prompt. */
  extraArgs?: string[];
  /** Working directory of the CLI; default `process.cwd()`. */
  cwd?: string;
  /** Merged over `process.env` for the CLI; `undefined` removes a variable. Never logged. */
  env?: Record<string, string | undefined>;
  /** The CLI's transcript root; default `$CLAUDE_CONFIG_DIR/projects` or `<HOME>/.claude/projects` of the CLI's env. */
  projectsRoot?: string;
  /** Gateway session → CLI session; default in memory. */
  bindings?: BindingStore;
  reseed?: ClaudeCliReseedOptions;
  /** Between SIGTERM and SIGKILL on abort; default 5,000 ms. 0 kills at once. */
  abortGraceMs?: number;
  /** The no-output watchdog: a CLI silent this long is killed with a `timeout`; default 300,000 ms. */
  noOutputTimeoutMs?: number;
  /** How much of stderr to keep for error messages (its tail), in characters; default 16,384. */
  stderrLimit?: number;
  hooks?: TransportHooks;
}
