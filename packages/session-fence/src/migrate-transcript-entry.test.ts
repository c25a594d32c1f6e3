import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../test/support';
import { migrateTranscriptEntry } from './migrate-transcript-entry';
import { createTranscriptStore } from './transcript-store';

const temp = useTempDir();
/** A transcript written by the version 1 store (`createTranscriptStore` before format 2). */
const v1Fixture = new URL('../test/fixtures/v1-transcript.jsonl', import.meta.url);

describe('migrateTranscriptEntry', () => {
  it('is at format version 2', () => {
    expect(TRANSCRIPT_FORMAT_VERSION).toBe(2);
  });

  it('passes current entries through and validates them', () => {
    const entry = {
      type: 'turn',
      id: '1',
      timestamp: 't',
      turnId: 'x',
      phase: 'end',
      outcome: 'reply',
      text: 'hello',
      model: 'anthropic/claude',
      provider: 'anthropic',
      messageId: 'm1',
      clientMessageId: 'c1',
      steeredMessageIds: ['m2', 'm3'],
    };
    expect(migrateTranscriptEntry(entry, 2)).toEqual({ ok: true, entry });
    expect(migrateTranscriptEntry({ ...entry, phase: 'middle' }, 2)).toMatchObject({ ok: false });
    expect(
      migrateTranscriptEntry(
        { type: 'message', id: '1', messageId: '1', timestamp: 't', role: 'robot', content: [] },
        2,
      ),
    ).toEqual({ ok: false, detail: 'message has an unknown role' });
    expect(migrateTranscriptEntry([1, 2], 2)).toMatchObject({ ok: false });
  });

  it('validates the optional fields of version 2', () => {
    const message = {
      type: 'message',
      id: 'm',
      messageId: 'public-m',
      clientMessageId: 'c',
      turnId: 't1',
      timestamp: 't',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    };
    expect(migrateTranscriptEntry(message, 2)).toEqual({ ok: true, entry: message });
    const { messageId: _, ...withoutMessageId } = message;
    expect(migrateTranscriptEntry(withoutMessageId, 2)).toEqual({
      ok: false,
      detail: 'message lacks a string messageId',
    });
    expect(migrateTranscriptEntry({ ...message, clientMessageId: 7 }, 2)).toEqual({
      ok: false,
      detail: 'message clientMessageId is not a string',
    });
    expect(migrateTranscriptEntry({ ...message, usage: { inputTokens: 1 } }, 2)).toMatchObject({
      ok: false,
    });

    const end = { type: 'turn', id: 'e', timestamp: 't', turnId: 't1', phase: 'end' };
    const failed = { ...end, outcome: 'error', errorKind: 'rate_limit', retryAfterMs: 1500 };
    expect(migrateTranscriptEntry(failed, 2)).toEqual({ ok: true, entry: failed });
    for (const [bad, detail] of [
      [{ outcome: 'gave-up' }, 'turn outcome "gave-up" is not reply, resend, error or aborted'],
      [{ errorKind: 'teapot' }, 'turn errorKind "teapot" is not an error kind'],
      [{ retryAfterMs: -1 }, 'turn retryAfterMs is not a non-negative number'],
      [{ retryAfterMs: Number.NaN }, 'turn retryAfterMs is not a non-negative number'],
      [{ steeredMessageIds: 'm2' }, 'turn steeredMessageIds is not an array of strings'],
      [{ text: 3 }, 'turn text is not a string'],
    ] as const) {
      expect(migrateTranscriptEntry({ ...end, ...bad }, 2)).toEqual({ ok: false, detail });
    }
  });

  it('validates the model-selection entry', () => {
    const selection = {
      type: 'model-selection',
      id: 's',
      timestamp: 't',
      model: 'openai/gpt-5.4',
      source: 'healed',
      turnId: 't9',
    };
    expect(migrateTranscriptEntry(selection, 2)).toEqual({ ok: true, entry: selection });
    expect(migrateTranscriptEntry({ ...selection, source: 'admin' }, 2)).toEqual({
      ok: false,
      detail: 'model-selection source is not user or healed',
    });
    expect(migrateTranscriptEntry({ ...selection, model: '' }, 2)).toEqual({
      ok: false,
      detail: 'model-selection entry lacks a model',
    });
    // In a version 1 file too: appends to an older file write current lines, and every migration
    // step keeps the lines of a later format as they are.
    expect(migrateTranscriptEntry(selection, 1)).toEqual({ ok: true, entry: selection });
  });

  it('migrates version 1 messages: messageId is the id', () => {
    const v1 = {
      type: 'message',
      id: 'e3',
      timestamp: 't',
      role: 'assistant',
      model: 'anthropic/claude',
      usage: { inputTokens: 10, outputTokens: 5 },
      content: [{ type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'ls' } }],
    };
    expect(migrateTranscriptEntry(v1, 1)).toEqual({ ok: true, entry: { ...v1, messageId: 'e3' } });
    // A version 2 line in a version 1 file keeps its own messageId.
    expect(migrateTranscriptEntry({ ...v1, messageId: 'public' }, 1)).toEqual({
      ok: true,
      entry: { ...v1, messageId: 'public' },
    });
  });

  it('maps version 1 turn outcomes onto reply, resend, error and aborted, and drops the rest', () => {
    const turn = { type: 'turn', id: 'e', timestamp: 't', turnId: 'x', phase: 'end' };
    for (const [from, to] of [
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
    ]) {
      expect(migrateTranscriptEntry({ ...turn, outcome: from }, 1), from).toEqual({
        ok: true,
        entry: { ...turn, outcome: to },
      });
    }
    for (const other of ['gave-up', 'constructor', '__proto__', '', 42, null]) {
      expect(migrateTranscriptEntry({ ...turn, outcome: other }, 1), String(other)).toEqual({
        ok: true,
        entry: turn,
      });
    }
    expect(migrateTranscriptEntry(turn, 1)).toEqual({ ok: true, entry: turn });
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
        messageId: 'r',
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
    expect(
      migrateTranscriptEntry({ id: 'u', timestamp: 't', role: 'user', content: 'hi' }, 0),
    ).toEqual({
      ok: true,
      entry: {
        type: 'message',
        id: 'u',
        messageId: 'u',
        timestamp: 't',
        role: 'user',
        content: [{ type: 'text', text: 'hi' }],
      },
    });
    expect(
      migrateTranscriptEntry(
        { type: 'turn', id: 'x', timestamp: 't', turnId: 'x', phase: 'end', outcome: 'failed' },
        0,
      ),
    ).toMatchObject({ ok: true, entry: { outcome: 'error' } });
  });

  it('refuses a version newer than it knows, and a version that is not one', () => {
    expect(migrateTranscriptEntry({ type: 'turn' }, TRANSCRIPT_FORMAT_VERSION + 1)).toEqual({
      ok: false,
      detail: `unsupported transcript format version ${TRANSCRIPT_FORMAT_VERSION + 1}`,
    });
    expect(migrateTranscriptEntry({ type: 'turn' }, -1)).toMatchObject({ ok: false });
    expect(migrateTranscriptEntry({ type: 'turn' }, 1.5)).toMatchObject({ ok: false });
  });
});

describe('older transcripts through the store', () => {
  it('reads a version 1 file written by the version 1 store, every line migrated', async () => {
    const sessionsDir = join(temp.path, 'sessions');
    await mkdir(sessionsDir);
    const store = createTranscriptStore({ sessionsDir });
    await copyFile(v1Fixture, store.transcriptPath('v1-session'));
    const read = await store.read('v1-session');
    expect(read.version).toBe(1);
    expect(read.header).toMatchObject({ type: 'header', version: 1, sessionId: 'v1-session' });
    expect(read.issues).toEqual([]);
    expect(
      read.entries.map((entry) =>
        entry.type === 'message'
          ? ['message', entry.id === entry.messageId]
          : entry.type === 'turn'
            ? ['turn', entry.outcome ?? null]
            : [entry.type],
      ),
    ).toEqual([
      ['turn', null],
      ['message', true],
      ['message', true],
      ['message', true],
      ['message', true],
      ['turn', 'reply'],
      ['compaction'],
      ['turn', null],
      ['turn', 'resend'],
      ['turn', 'error'],
      ['turn', null],
    ]);
    expect(read.entries.at(-1)).not.toHaveProperty('outcome');

    // Appending keeps the version 1 header (history is never rewritten); both read back.
    await store.append('v1-session', [
      {
        type: 'model-selection',
        id: 'sel',
        timestamp: 't',
        model: 'openai/gpt-5.4',
        source: 'user',
      },
    ]);
    const after = await store.read('v1-session');
    expect(after.version).toBe(1);
    expect(after.issues).toEqual([]);
    expect(after.entries.slice(0, -1)).toEqual(read.entries);
    expect(after.entries.at(-1)).toMatchObject({ type: 'model-selection', source: 'user' });
  });

  it('writes version 2 headers, and messages without messageId get their id', async () => {
    const store = createTranscriptStore({ sessionsDir: join(temp.path, 'sessions') });
    const v1Shaped = {
      type: 'message',
      id: 'old-style',
      timestamp: 't',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    } as unknown as Parameters<typeof store.append>[1][number];
    await store.append('s', [v1Shaped]);
    const [header, line] = (await readFile(store.transcriptPath('s'), 'utf8')).split('\n');
    expect(JSON.parse(header ?? '')).toMatchObject({ type: 'header', version: 2 });
    expect(JSON.parse(line ?? '')).toMatchObject({ id: 'old-style', messageId: 'old-style' });
  });

  it('reads a headerless version 0 file, and appends to it without a header', async () => {
    const sessionsDir = join(temp.path, 'sessions');
    await mkdir(sessionsDir);
    const store = createTranscriptStore({ sessionsDir });
    await writeFile(
      store.transcriptPath('v0'),
      `${JSON.stringify({ id: 'a', timestamp: 't', role: 'user', content: 'hi' })}\n`,
    );
    await store.append('v0', [
      {
        type: 'message',
        id: 'b',
        messageId: 'pub-b',
        timestamp: 't',
        role: 'assistant',
        content: [{ type: 'text', text: 'hello' }],
      },
    ]);
    const read = await store.read('v0');
    expect(read.version).toBe(0);
    expect(read.issues).toEqual([]);
    expect(read.entries.map((entry) => entry.type === 'message' && entry.messageId)).toEqual([
      'a',
      'pub-b',
    ]);
  });
});
