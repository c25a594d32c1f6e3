import { constants } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { abortableDelay } from './abortable-delay';
import { nodeFileSystem, readableFile } from './file-system';
import { toConversationLine } from './find-trailing-orphans';
import { readLines } from './read-lines';
import { type OpenedFile, openRegularFileIfExists } from './safe-file';
import { assertValidSessionId } from './session-id';

/** Longest project directory name Claude Code writes before it cuts and adds a hash. */
const MAX_SLUG_LENGTH = 200;

/**
 * The project directory name Claude Code uses for a working directory: every UTF-16 code unit
 * other than an ASCII letter or digit becomes `-`; a name longer than 200 is cut to 200 and
 * gets `-<hash of the cwd in base 36>` appended. Checked against Claude Code 2.1.332:
 * `/tmp/a/my.dir_x y+z@w` → `-tmp-a-my-dir-x-y-z-w`, and 201-character paths.
 */
export function claudeCliProjectSlug(cwd: string): string {
  const slug = cwd.replace(/[^A-Za-z0-9]/g, '-');
  if (slug.length <= MAX_SLUG_LENGTH) return slug;
  return `${slug.slice(0, MAX_SLUG_LENGTH)}-${Math.abs(stringHash(cwd)).toString(36)}`;
}

/** The 32-bit `s[0]*31^(n-1) + … + s[n-1]` string hash. */
function stringHash(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index += 1) {
    hash = (Math.imul(hash, 31) + text.charCodeAt(index)) | 0;
  }
  return hash;
}

/** `$CLAUDE_CONFIG_DIR/projects`, else `$HOME/.claude/projects` (of `env`, default `process.env`). */
export function defaultClaudeProjectsRoot(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const configDir = env['CLAUDE_CONFIG_DIR'];
  return configDir
    ? join(configDir, 'projects')
    : join(env['HOME'] || homedir(), '.claude', 'projects');
}

export interface ResolveClaudeCliTranscriptPathOptions {
  /** The CLI's working directory (absolute). */
  cwd: string;
  /** The CLI session id (validated like a Keel session id; CLI ids are UUIDs). */
  sessionId: string;
  /** Default `defaultClaudeProjectsRoot()`. */
  projectsRoot?: string;
}

/** `<projectsRoot>/<slug of cwd>/<sessionId>.jsonl`. */
export function resolveClaudeCliTranscriptPath(
  options: ResolveClaudeCliTranscriptPathOptions,
): string {
  assertValidSessionId(options.sessionId);
  const root = options.projectsRoot ?? defaultClaudeProjectsRoot();
  return join(root, claudeCliProjectSlug(options.cwd), `${options.sessionId}.jsonl`);
}

export interface ClaudeCliTranscriptHasAssistantOptions {
  signal?: AbortSignal;
  /** Wait before the one re-scan done when the first scan finds nothing; default 150. */
  rescanDelayMs?: number;
}

/**
 * Whether a claude-cli transcript holds at least one main-chain assistant record (synthetic API
 * error lines do not count). If the first scan finds none, it waits `rescanDelayMs` and scans
 * once more, in case the CLI had not flushed yet. Missing, symlinked or non-regular → false.
 * The scan streams from the start and stops at the first assistant record.
 */
export async function claudeCliTranscriptHasAssistant(
  path: string,
  options: ClaudeCliTranscriptHasAssistantOptions = {},
): Promise<boolean> {
  if (await scanForAssistant(path, options.signal)) return true;
  await abortableDelay(options.rescanDelayMs ?? 150, options.signal);
  return scanForAssistant(path, options.signal);
}

async function scanForAssistant(path: string, signal: AbortSignal | undefined): Promise<boolean> {
  signal?.throwIfAborted();
  let opened: OpenedFile | undefined;
  try {
    opened = await openRegularFileIfExists(nodeFileSystem, path, constants.O_RDONLY);
  } catch {
    return false;
  }
  if (opened === undefined) return false;
  try {
    const file = readableFile(nodeFileSystem, opened.fd);
    const size = Number(opened.stats.size);
    for await (const line of readLines(file, { start: 0, end: size }, { signal })) {
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch {
        continue;
      }
      if (toConversationLine(value, 'claude-cli')?.assistant) return true;
    }
    signal?.throwIfAborted();
    return false;
  } finally {
    await nodeFileSystem.close(opened.fd);
  }
}
