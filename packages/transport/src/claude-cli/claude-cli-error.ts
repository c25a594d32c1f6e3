import type { ErrorKind } from '@keel/spec';
import { hasMarker, TransportError, type TransportErrorOptions } from '../transport-error';

const MARKER = Symbol.for('keel.error.ClaudeCliError');

export interface ClaudeCliErrorOptions extends TransportErrorOptions {
  keelKind: ErrorKind;
  /** The CLI's exit code, when it exited. */
  exitCode?: number | null;
  /** The signal that ended the CLI, when one did. */
  exitSignal?: string | null;
  /** HTTP status the CLI reported for an API error (`api_error_status`). */
  status?: number;
  /** The tail of the CLI's stderr, sanitized (no control characters, capped). */
  stderr?: string;
  /** The CLI session the run belonged to, when known. */
  cliSessionId?: string;
  /** The tool calls the CLI had started when a clock stopped it (it runs them itself). */
  toolUseIds?: readonly string[];
}

/**
 * The Claude Code CLI failed: a non-zero exit, an error `result`, no result at all, or a clock
 * stopped it after it had started tools (`toolUseIds`; kind `unknown`, see `timeoutAfterTools`).
 */
export class ClaudeCliError extends TransportError {
  readonly [MARKER] = true;
  readonly keelKind: ErrorKind;
  readonly exitCode: number | null | undefined;
  readonly exitSignal: string | null | undefined;
  readonly status: number | undefined;
  readonly stderr: string | undefined;
  readonly cliSessionId: string | undefined;
  readonly toolUseIds: readonly string[] | undefined;

  constructor(options: ClaudeCliErrorOptions) {
    super(options);
    this.name = 'ClaudeCliError';
    this.keelKind = options.keelKind;
    this.exitCode = options.exitCode;
    this.exitSignal = options.exitSignal;
    this.status = options.status;
    this.stderr = options.stderr;
    this.cliSessionId = options.cliSessionId;
    this.toolUseIds = options.toolUseIds;
  }

  static override isInstance(error: unknown): error is ClaudeCliError {
    return hasMarker(error, MARKER);
  }
}
