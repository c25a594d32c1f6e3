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

/**
 * What to do with a bound CLI session whose transcript ends in a `tool_use` nothing answered (a
 * run killed mid-tool), or whose last exchange is too long to inspect:
 * - `reseed` (default): drop the binding, start a fresh CLI session and reseed the prior context
 *   into it (`binding-invalidated`). Safe with any CLI version: a CLI that cannot resume such a
 *   session would fail the turn.
 * - `resume`: resume it anyway. For CLI versions that heal an interrupted tool call themselves
 *   (Claude Code 2.1.x answers it with an error `tool_result` when resumed), which keeps the CLI's
 *   own context whole instead of a reseeded summary. The transcript is then not inspected; a
 *   missing transcript still starts a fresh session.
 */
export type OrphanPolicy = 'reseed' | 'resume';

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
  /** A bound session ending in an orphaned `tool_use`: `reseed` (default) or `resume` it. */
  orphanPolicy?: OrphanPolicy;
  reseed?: ClaudeCliReseedOptions;
  /** Between SIGTERM and SIGKILL on abort; default 5,000 ms. 0 kills at once. */
  abortGraceMs?: number;
  /** The no-output watchdog: a CLI silent this long is killed with a `timeout`; default 300,000 ms. */
  noOutputTimeoutMs?: number;
  /** How much of stderr to keep for error messages (its tail), in characters; default 16,384. */
  stderrLimit?: number;
  hooks?: TransportHooks;
}
