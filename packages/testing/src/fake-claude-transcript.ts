import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** `<home>/.claude/projects/<cwd with every non-alphanumeric character as "-">`. */
export function fakeClaudeProjectDir(home: string, cwd: string): string {
  return join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
}

export interface FakeClaudeTranscriptOptions {
  home: string;
  cwd: string;
  sessionId: string;
  version?: string;
}

/** Appends lines shaped like Claude Code 2.1.x session records. */
export interface FakeClaudeTranscript {
  readonly path: string;
  exists(): boolean;
  userPrompt(text: string): void;
  /** One content block per line; lines of one message share `message.id`. Returns the line uuid. */
  assistantBlock(messageId: string, model: string, block: Record<string, unknown>): string;
  toolResult(toolUseId: string, content: string, isError: boolean, assistantUuid: string): void;
  meta(record: Record<string, unknown>): void;
}

export function createFakeClaudeTranscript(
  options: FakeClaudeTranscriptOptions,
): FakeClaudeTranscript {
  const dir = fakeClaudeProjectDir(options.home, options.cwd);
  const path = join(dir, `${options.sessionId}.jsonl`);
  let parentUuid: string | null = null;
  const envelope = (type: string) => {
    const uuid = randomUUID();
    const record = {
      parentUuid,
      isSidechain: false,
      userType: 'external',
      cwd: options.cwd,
      sessionId: options.sessionId,
      version: options.version ?? '2.1.332-fake',
      type,
      uuid,
      timestamp: new Date().toISOString(),
    };
    parentUuid = uuid;
    return record;
  };
  const write = (record: Record<string, unknown>) => {
    mkdirSync(dir, { recursive: true });
    appendFileSync(path, `${JSON.stringify(record)}\n`);
  };
  return {
    path,
    exists: () => existsSync(path),
    userPrompt(text) {
      write({
        type: 'queue-operation',
        operation: 'enqueue',
        timestamp: new Date().toISOString(),
        sessionId: options.sessionId,
        content: text,
      });
      write({ ...envelope('user'), message: { role: 'user', content: text } });
    },
    assistantBlock(messageId, model, block) {
      const record = envelope('assistant');
      write({
        ...record,
        requestId: `req_${messageId}`,
        message: {
          id: messageId,
          type: 'message',
          role: 'assistant',
          model,
          content: [block],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      });
      return record.uuid;
    },
    toolResult(toolUseId, content, isError, assistantUuid) {
      write({
        ...envelope('user'),
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError }],
        },
        toolUseResult: isError
          ? `Error: ${content}`
          : { stdout: content, stderr: '', interrupted: false },
        sourceToolAssistantUUID: assistantUuid,
      });
    },
    meta(record) {
      write(record);
    },
  };
}
