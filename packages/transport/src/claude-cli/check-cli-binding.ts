import {
  defaultClaudeProjectsRoot,
  getTranscriptFileStatus,
  inspectTrailingToolUses,
  resolveClaudeCliTranscriptPath,
} from '@keel/session-fence';
import type { BindingInvalidReason } from '@keel/spec';
import type { OrphanPolicy } from './claude-cli-options';

/** Where the CLI run with this environment keeps its transcripts. */
export function cliProjectsRoot(env: NodeJS.ProcessEnv): string {
  return defaultClaudeProjectsRoot(env);
}

/** First look at a transcript's end: 1 MiB, enough for almost every last exchange. */
export const DEFAULT_BINDING_INSPECT_BYTES = 1024 * 1024;
/** Second, last look when the last exchange is longer (a large tool result): 32 MiB. */
export const DEFAULT_BINDING_MAX_INSPECT_BYTES = 32 * 1024 * 1024;

export interface CheckCliBindingOptions {
  projectsRoot: string;
  cwd: string;
  cliSessionId: string;
  /** Bytes read from the transcript's end at first; default 1 MiB. */
  inspectBytes?: number;
  /** Bytes read when the first window did not hold the whole last exchange; default 32 MiB. */
  maxInspectBytes?: number;
  /**
   * `resume`: the CLI heals an orphaned `tool_use` itself, so only the transcript's presence is
   * checked. Default `reseed`: the transcript's end is inspected too.
   */
  orphanPolicy?: OrphanPolicy;
  signal?: AbortSignal;
}

export type CliBindingCheck =
  | { valid: true; transcriptPath: string }
  | {
      valid: false;
      transcriptPath: string | undefined;
      reason: BindingInvalidReason;
      orphanedToolUseIds?: string[];
    };

/**
 * Whether a CLI session can be resumed: its transcript must exist (a plain, non-empty file)
 * and, unless the orphan policy is `resume`, must not end in an assistant `tool_use` that no
 * `tool_result` answers. A last exchange too
 * long to inspect within `maxInspectBytes` cannot be shown safe, so it invalidates the binding
 * too (`unverifiable-transcript`): reseeding from the caller's transcript loses nothing, while
 * resuming a hidden orphan kills the session.
 */
export async function checkCliBinding(options: CheckCliBindingOptions): Promise<CliBindingCheck> {
  let transcriptPath: string;
  try {
    transcriptPath = resolveClaudeCliTranscriptPath({
      projectsRoot: options.projectsRoot,
      cwd: options.cwd,
      sessionId: options.cliSessionId,
    });
  } catch {
    // An id that cannot name a file cannot be resumed either.
    return { valid: false, transcriptPath: undefined, reason: 'missing-transcript' };
  }
  const status = await getTranscriptFileStatus(transcriptPath, { signal: options.signal });
  if (status !== 'present') {
    return { valid: false, transcriptPath, reason: 'missing-transcript' };
  }
  if (options.orphanPolicy === 'resume') return { valid: true, transcriptPath };
  const inspectBytes = options.inspectBytes ?? DEFAULT_BINDING_INSPECT_BYTES;
  const maxInspectBytes = Math.max(
    inspectBytes,
    options.maxInspectBytes ?? DEFAULT_BINDING_MAX_INSPECT_BYTES,
  );
  const inspect = (tailBytes: number) =>
    inspectTrailingToolUses(transcriptPath, {
      format: 'claude-cli',
      tailBytes,
      signal: options.signal,
    });
  let inspection = await inspect(inspectBytes);
  if (!inspection.complete && inspection.orphans.length === 0 && maxInspectBytes > inspectBytes) {
    inspection = await inspect(maxInspectBytes);
  }
  if (inspection.orphans.length > 0) {
    return {
      valid: false,
      transcriptPath,
      reason: 'orphaned-tool-use',
      orphanedToolUseIds: inspection.orphans,
    };
  }
  if (!inspection.complete) {
    return { valid: false, transcriptPath, reason: 'unverifiable-transcript' };
  }
  return { valid: true, transcriptPath };
}
