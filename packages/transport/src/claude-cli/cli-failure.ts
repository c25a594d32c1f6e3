import { sanitizeForLog } from '@keel/error-classification';
import { TransportTimeoutError } from '../transport-error';
import { ClaudeCliError } from './claude-cli-error';
import { cliErrorKind } from './cli-error-kind';
import type { CliExit } from './cli-process';
import type { CliMessage } from './parse-cli-message';

type CliResult = Extract<CliMessage, { type: 'result' }>;

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH/i;

/** Values (8+ characters) of secret-looking variables in the CLI's environment, kept out of messages. */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env).flatMap(([name, value]) =>
    SECRET_NAME.test(name) && value !== undefined && value.length >= 8 ? [value] : [],
  );
}

/** Log-safe text: secrets replaced, control characters escaped, length capped. */
export function safeText(text: string, secrets: readonly string[], maxLength = 1_000): string {
  let redacted = text;
  for (const secret of secrets) redacted = redacted.split(secret).join('[redacted]');
  return sanitizeForLog(redacted, { maxLength });
}

export interface CliFailureFacts {
  command: string;
  exit: CliExit;
  result: CliResult | undefined;
  /** Texts of synthetic assistant messages (`API Error: …`). */
  syntheticTexts: readonly string[];
  stderr: string;
  secrets: readonly string[];
  cliSessionId: string | undefined;
}

/** The error for a run that did not succeed, or `undefined` when it did. */
export function cliFailure(facts: CliFailureFacts): ClaudeCliError | undefined {
  const { exit, result } = facts;
  if (result !== undefined && !result.isError) return undefined;
  const stderr = facts.stderr.trim() === '' ? undefined : safeText(facts.stderr, facts.secrets);
  const common = {
    exitCode: exit.code,
    exitSignal: exit.signal,
    ...(stderr === undefined ? {} : { stderr }),
    ...(facts.cliSessionId === undefined ? {} : { cliSessionId: facts.cliSessionId }),
  };
  if (exit.spawnError !== undefined) {
    const code = (exit.spawnError as NodeJS.ErrnoException).code ?? exit.spawnError.message;
    return new ClaudeCliError({
      message: `Could not start the Claude CLI (${safeText(facts.command, facts.secrets, 200)}): ${code}`,
      cause: exit.spawnError,
      keelKind: 'unknown',
      ...common,
    });
  }
  const detail = [
    result?.text ?? '',
    ...(result?.errors ?? []),
    ...facts.syntheticTexts,
    facts.stderr,
  ]
    .filter((text) => text.trim() !== '')
    .join('\n');
  const keelKind = cliErrorKind({
    ...(result?.status === undefined ? {} : { status: result.status }),
    ...(result?.errorType === undefined ? {} : { errorType: result.errorType }),
    text: detail,
  });
  const how =
    result !== undefined
      ? `returned an error result (${result.subtype}${result.status === undefined ? '' : `, status ${result.status}`})`
      : exit.code === 0
        ? 'exited without a result'
        : `exited with ${exit.signal ?? `code ${String(exit.code)}`} without a result`;
  const safeDetail = detail === '' ? '' : `: ${safeText(detail, facts.secrets, 600)}`;
  return new ClaudeCliError({
    message: `Claude CLI ${how}${safeDetail}`,
    keelKind,
    ...(result?.status === undefined ? {} : { status: result.status }),
    ...common,
  });
}

/**
 * The error for a run a clock stopped (no output, first token, whole attempt). Before the CLI
 * started any tool it is the `TransportTimeoutError` itself: a retryable `timeout`, as for every
 * transport. After it started one it is not: the CLI runs its tools itself, so another attempt —
 * on this model or a fallback — would run them (and their side effects) again, and the one that
 * was running was killed half-way. It becomes a `ClaudeCliError` of kind `unknown` (final: no
 * retry, no fallback; the user decides), with the tool calls in `toolUseIds` and the timeout as
 * its `cause`.
 */
export function timeoutAfterTools(
  error: unknown,
  run: { toolCallIds: readonly string[]; cliSessionId: string | undefined },
): unknown {
  if (!TransportTimeoutError.isInstance(error) || run.toolCallIds.length === 0) return error;
  const ids = run.toolCallIds.join(', ');
  return new ClaudeCliError({
    message: `The Claude CLI was stopped by the ${error.timeoutKind} timeout (${error.timeoutMs} ms) after it had started tools (${ids}); not retryable: another attempt would run them again.`,
    cause: error,
    keelKind: 'unknown',
    toolUseIds: [...run.toolCallIds],
    ...(run.cliSessionId === undefined ? {} : { cliSessionId: run.cliSessionId }),
  });
}
