import type { ContentBlock, Role, TranscriptEntry } from './transcript-types';
import { TRANSCRIPT_FORMAT_VERSION } from './transcript-types';

export type MigrateResult = { ok: true; entry: TranscriptEntry } | { ok: false; detail: string };

/**
 * Brings one parsed line written under format `fromVersion` to the current format.
 *
 * Version 0 is the headerless layout written before headers existed: message lines without
 * `type` (`{ id, timestamp, role, content }`), `content` possibly a plain string, and
 * tool_result blocks in the provider's snake_case (`tool_use_id`, `is_error`).
 * Version 1 is current. Newer versions are refused rather than guessed at.
 */
export function migrateTranscriptEntry(value: unknown, fromVersion: number): MigrateResult {
  if (fromVersion > TRANSCRIPT_FORMAT_VERSION) {
    return { ok: false, detail: `unsupported transcript format version ${fromVersion}` };
  }
  if (!isRecord(value)) return { ok: false, detail: 'line is not a JSON object' };
  const record = fromVersion === 0 ? migrateFromV0(value) : value;
  return validateEntry(record);
}

function migrateFromV0(value: Record<string, unknown>): Record<string, unknown> {
  if (value['type'] !== undefined) return value;
  if (typeof value['role'] !== 'string') return value;
  const content = value['content'];
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  return {
    ...value,
    type: 'message',
    content: Array.isArray(blocks) ? blocks.map(migrateBlockFromV0) : blocks,
  };
}

function migrateBlockFromV0(block: unknown): unknown {
  if (!isRecord(block) || block['type'] !== 'tool_result') return block;
  const { tool_use_id, is_error, ...rest } = block;
  const migrated: Record<string, unknown> = { ...rest };
  migrated['toolUseId'] = rest['toolUseId'] ?? tool_use_id;
  if (is_error !== undefined && rest['isError'] === undefined) migrated['isError'] = is_error;
  if (typeof migrated['content'] !== 'string') {
    migrated['content'] = JSON.stringify(migrated['content'] ?? '');
  }
  return migrated;
}

const roles: ReadonlySet<string> = new Set<Role>(['user', 'assistant', 'tool']);

function validateEntry(value: Record<string, unknown>): MigrateResult {
  if (typeof value['id'] !== 'string' || typeof value['timestamp'] !== 'string') {
    return { ok: false, detail: 'entry lacks a string id or timestamp' };
  }
  switch (value['type']) {
    case 'message': {
      if (typeof value['role'] !== 'string' || !roles.has(value['role'])) {
        return { ok: false, detail: 'message has an unknown role' };
      }
      const content = value['content'];
      if (!Array.isArray(content) || !content.every(isContentBlock)) {
        return { ok: false, detail: 'message content is not an array of content blocks' };
      }
      return { ok: true, entry: value as unknown as TranscriptEntry };
    }
    case 'compaction':
      if (typeof value['summary'] !== 'string' || !isRecord(value['provenance'])) {
        return { ok: false, detail: 'compaction entry lacks summary or provenance' };
      }
      return { ok: true, entry: value as unknown as TranscriptEntry };
    case 'turn':
      if (
        typeof value['turnId'] !== 'string' ||
        !(value['phase'] === 'start' || value['phase'] === 'end')
      ) {
        return { ok: false, detail: 'turn entry lacks turnId or phase' };
      }
      return { ok: true, entry: value as unknown as TranscriptEntry };
    default:
      return { ok: false, detail: `unknown entry type ${JSON.stringify(value['type'])}` };
  }
}

function isContentBlock(block: unknown): block is ContentBlock {
  if (!isRecord(block)) return false;
  switch (block['type']) {
    case 'text':
      return typeof block['text'] === 'string';
    case 'tool_use':
      return typeof block['id'] === 'string' && typeof block['name'] === 'string';
    case 'tool_result':
      return typeof block['toolUseId'] === 'string' && typeof block['content'] === 'string';
    default:
      return false;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
