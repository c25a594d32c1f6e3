import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  findOrphanedToolUses,
  getTranscriptFileStatus,
  resolveClaudeCliTranscriptPath,
} from '@keel/session-fence';
import type { BindingInvalidReason } from '../types';

/** Where the CLI run with this environment keeps its transcripts. */
export function cliProjectsRoot(env: NodeJS.ProcessEnv): string {
  const configDir = env['CLAUDE_CONFIG_DIR'];
  if (configDir) return join(configDir, 'projects');
  return join(env['HOME'] || homedir(), '.claude', 'projects');
}

export interface CheckCliBindingOptions {
  projectsRoot: string;
  cwd: string;
  cliSessionId: string;
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
 * and must not end in an assistant `tool_use` that no `tool_result` answers.
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
  const orphans = await findOrphanedToolUses(transcriptPath, {
    format: 'claude-cli',
    signal: options.signal,
  });
  if (orphans.length > 0) {
    return {
      valid: false,
      transcriptPath,
      reason: 'orphaned-tool-use',
      orphanedToolUseIds: orphans,
    };
  }
  return { valid: true, transcriptPath };
}
