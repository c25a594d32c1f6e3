import { describe, expect, it } from 'vitest';
import { migrateTranscriptEntry } from './migrate-transcript-entry';
import { TRANSCRIPT_FORMAT_VERSION } from './transcript-types';

describe('migrateTranscriptEntry', () => {
  it('passes current entries through and validates them', () => {
    const entry = {
      type: 'turn',
      id: '1',
      timestamp: 't',
      turnId: 'x',
      phase: 'end',
      outcome: 'reply',
    };
    expect(migrateTranscriptEntry(entry, TRANSCRIPT_FORMAT_VERSION)).toEqual({ ok: true, entry });
    expect(migrateTranscriptEntry({ ...entry, phase: 'middle' }, 1)).toMatchObject({ ok: false });
    expect(
      migrateTranscriptEntry(
        { type: 'message', id: '1', timestamp: 't', role: 'robot', content: [] },
        1,
      ),
    ).toMatchObject({
      ok: false,
      detail: 'message has an unknown role',
    });
    expect(migrateTranscriptEntry([1, 2], 1)).toMatchObject({ ok: false });
  });

  it('migrates version 0 messages: no type, string content, snake_case tool results', () => {
    expect(
      migrateTranscriptEntry(
        {
          id: 'r',
          timestamp: 't',
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'tu',
              content: [{ type: 'text', text: 'x' }],
              is_error: true,
            },
          ],
        },
        0,
      ),
    ).toEqual({
      ok: true,
      entry: {
        type: 'message',
        id: 'r',
        timestamp: 't',
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolUseId: 'tu',
            content: '[{"type":"text","text":"x"}]',
            isError: true,
          },
        ],
      },
    });
  });

  it('refuses a version newer than it knows', () => {
    expect(migrateTranscriptEntry({ type: 'turn' }, TRANSCRIPT_FORMAT_VERSION + 1)).toEqual({
      ok: false,
      detail: `unsupported transcript format version ${TRANSCRIPT_FORMAT_VERSION + 1}`,
    });
  });
});
