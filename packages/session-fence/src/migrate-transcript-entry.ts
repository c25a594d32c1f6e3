import type { TranscriptEntry, TurnOutcomeKind } from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { validateTranscriptEntry } from './validate-transcript-entry';

export type MigrateResult = { ok: true; entry: TranscriptEntry } | { ok: false; detail: string };

/**
 * Brings one parsed line written under format `fromVersion` to the current format (2), then
 * validates it.
 *
 * - Version 0 is the headerless layout written before headers existed: message lines without
 *   `type` (`{ id, timestamp, role, content }`), `content` possibly a plain string, and
 *   tool_result blocks in the provider's snake_case (`tool_use_id`, `is_error`).
 * - Version 1 added the header; its message entries have no `messageId` (it becomes `id`) and its
 *   turn entries carry `outcome` as free text: `reply`, `resend`, `error` and `aborted` stay,
 *   `replied` / `delivered` become `reply`, `takeover` becomes `resend` (a taken-over turn ended
 *   with resend guidance), `failed` becomes `error`, `cancelled` / `canceled` become `aborted`;
 *   any other outcome is dropped from the entry (never guessed).
 * - Version 2 is current. Newer versions are refused rather than guessed at.
 *
 * Each step leaves lines of a later format as they are, so a current line appended to an older
 * file (appends never rewrite the header) reads back unchanged.
 */
export function migrateTranscriptEntry(value: unknown, fromVersion: number): MigrateResult {
  if (!Number.isInteger(fromVersion) || fromVersion < 0) {
    return { ok: false, detail: `invalid transcript format version ${fromVersion}` };
  }
  if (fromVersion > TRANSCRIPT_FORMAT_VERSION) {
    return { ok: false, detail: `unsupported transcript format version ${fromVersion}` };
  }
  if (!isRecord(value)) return { ok: false, detail: 'line is not a JSON object' };
  let record = value;
  if (fromVersion < 1) record = migrateFromV0(record);
  if (fromVersion < 2) record = migrateFromV1(record);
  return validateTranscriptEntry(record);
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

/** Version 1 turn outcomes and the version 2 outcome each stands for. */
const v1Outcomes: ReadonlyMap<string, TurnOutcomeKind> = new Map([
  ['reply', 'reply'],
  ['replied', 'reply'],
  ['delivered', 'reply'],
  ['resend', 'resend'],
  ['takeover', 'resend'],
  ['error', 'error'],
  ['failed', 'error'],
  ['aborted', 'aborted'],
  ['cancelled', 'aborted'],
  ['canceled', 'aborted'],
]);

function migrateFromV1(value: Record<string, unknown>): Record<string, unknown> {
  if (value['type'] === 'message' && value['messageId'] === undefined) {
    return { ...value, messageId: value['id'] };
  }
  if (value['type'] === 'turn' && value['outcome'] !== undefined) {
    const outcome = value['outcome'];
    const mapped = typeof outcome === 'string' ? v1Outcomes.get(outcome) : undefined;
    if (mapped === outcome) return value;
    const { outcome: _dropped, ...rest } = value;
    return mapped === undefined ? rest : { ...rest, outcome: mapped };
  }
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
