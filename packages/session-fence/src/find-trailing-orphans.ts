import { isRecord } from './migrate-transcript-entry';

/** One conversation line reduced to what orphan detection needs. */
export interface ConversationLine {
  assistant: boolean;
  /** Lines of one assistant message share this key (claude-cli `message.id`). */
  messageKey: string | undefined;
  calls: string[];
  answers: string[];
}

export type TranscriptFormat = 'keel' | 'claude-cli';

const callTypes: ReadonlySet<string> = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

function isAnswerType(type: unknown): boolean {
  return typeof type === 'string' && (type === 'tool_result' || type.endsWith('_tool_result'));
}

/**
 * Reduces one parsed JSONL line to a conversation line, or `undefined` for anything that is not
 * conversation. claude-cli: only top-level `type` `user` / `assistant` lines count (never by
 * `message.role`), sidechain lines and synthetic assistant lines (API errors) are skipped, and
 * nothing nested (e.g. `progress.data.message`) is looked at. keel: `message` entries.
 */
export function toConversationLine(
  value: unknown,
  format: TranscriptFormat,
): ConversationLine | undefined {
  if (!isRecord(value)) return undefined;
  return format === 'keel' ? fromKeel(value) : fromClaudeCli(value);
}

function fromClaudeCli(line: Record<string, unknown>): ConversationLine | undefined {
  const type = line['type'];
  if (type !== 'user' && type !== 'assistant') return undefined;
  if (line['isSidechain'] === true) return undefined;
  const message = line['message'];
  if (!isRecord(message)) return undefined;
  const assistant = type === 'assistant';
  if (assistant && (message['model'] === '<synthetic>' || line['isApiErrorMessage'] === true))
    return undefined;
  const blocks = Array.isArray(message['content']) ? message['content'] : [];
  const calls: string[] = [];
  const answers: string[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (assistant && callTypes.has(String(block['type'])) && typeof block['id'] === 'string')
      calls.push(block['id']);
    else if (isAnswerType(block['type']) && typeof block['tool_use_id'] === 'string') {
      answerInLine(calls, answers, block['tool_use_id']);
    }
  }
  const id = message['id'];
  return { assistant, messageKey: typeof id === 'string' ? id : undefined, calls, answers };
}

function fromKeel(entry: Record<string, unknown>): ConversationLine | undefined {
  if (
    entry['type'] !== 'message' &&
    !(entry['type'] === undefined && typeof entry['role'] === 'string')
  ) {
    return undefined;
  }
  const assistant = entry['role'] === 'assistant';
  const blocks = Array.isArray(entry['content']) ? entry['content'] : [];
  const calls: string[] = [];
  const answers: string[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (assistant && block['type'] === 'tool_use' && typeof block['id'] === 'string')
      calls.push(block['id']);
    else if (isAnswerType(block['type'])) {
      const id = block['toolUseId'] ?? block['tool_use_id'];
      if (typeof id === 'string') answerInLine(calls, answers, id);
    }
  }
  return { assistant, messageKey: undefined, calls, answers };
}

/** An answer after its call in the same line (e.g. a server tool result) settles the call there. */
function answerInLine(calls: string[], answers: string[], id: string): void {
  const index = calls.indexOf(id);
  if (index === -1) answers.push(id);
  else calls.splice(index, 1);
}

/**
 * The ids of tool calls in the last assistant message that no later line answers. Only trailing
 * orphans count: an unanswered call in an earlier message is inert and ignored.
 */
export function findTrailingOrphans(lines: readonly ConversationLine[]): string[] {
  let lastIndex = -1;
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    if (lines[index]?.assistant) {
      lastIndex = index;
      break;
    }
  }
  const last = lines[lastIndex];
  if (last === undefined) return [];
  const calls: Array<{ id: string; index: number }> = [];
  lines.forEach((line, index) => {
    const sameMessage =
      index === lastIndex ||
      (last.messageKey !== undefined && line.assistant && line.messageKey === last.messageKey);
    if (sameMessage) for (const id of line.calls) calls.push({ id, index });
  });
  const orphans: string[] = [];
  for (const call of calls) {
    if (orphans.includes(call.id)) continue;
    const answered = lines.some(
      (line, index) => index > call.index && line.answers.includes(call.id),
    );
    if (!answered) orphans.push(call.id);
  }
  return orphans;
}
