import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MessageEntry, SessionStorage } from '@keel/spec';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../test/support';
import { findOrphanedToolUses } from './find-orphaned-tool-uses';
import { INTERRUPTED_TOOL_RESULT, repairOrphanedToolUses } from './repair-orphaned-tool-uses';
import { createSessionFence } from './session-fence';
import { createTranscriptStore, type TranscriptStore } from './transcript-store';

const temp = useTempDir();
let store: TranscriptStore;
beforeEach(async () => {
  store = createTranscriptStore({ sessionsDir: join(temp.path, 'sessions') });
});

const t = '2026-01-01T00:00:00.000Z';
const calls = (id: string, ...ids: string[]): MessageEntry => ({
  type: 'message',
  id,
  messageId: id,
  timestamp: t,
  role: 'assistant',
  content: [
    { type: 'text', text: 'running' },
    ...ids.map((toolId) => ({ type: 'tool_use' as const, id: toolId, name: 'Bash', input: {} })),
  ],
});
const answers = (id: string, ...ids: string[]): MessageEntry => ({
  type: 'message',
  id,
  messageId: id,
  timestamp: t,
  role: 'tool',
  content: ids.map((toolUseId) => ({ type: 'tool_result' as const, toolUseId, content: 'ok' })),
});

describe('repairOrphanedToolUses', () => {
  it('durably appends an error tool_result for each trailing orphan', async () => {
    await store.append('s1', [
      calls('a1', 'old'),
      answers('r1', 'old'),
      calls('a2', 'x', 'y', 'z'),
      answers('r2', 'y'),
    ]);
    const path = store.transcriptPath('s1');
    expect(await findOrphanedToolUses(path, { format: 'keel' })).toEqual(['x', 'z']);

    expect(await repairOrphanedToolUses({ storage: store, sessionId: 's1' })).toEqual(['x', 'z']);
    expect(await findOrphanedToolUses(path, { format: 'keel' })).toEqual([]);
    const lastLine = JSON.parse((await readFile(path, 'utf8')).trim().split('\n').at(-1) ?? '');
    expect(lastLine).toMatchObject({
      type: 'message',
      role: 'tool',
      content: [
        { type: 'tool_result', toolUseId: 'x', content: INTERRUPTED_TOOL_RESULT, isError: true },
        { type: 'tool_result', toolUseId: 'z', content: INTERRUPTED_TOOL_RESULT, isError: true },
      ],
    });
    expect(await repairOrphanedToolUses({ storage: store, sessionId: 's1' })).toEqual([]);
  });

  it('repairs an orphan whose call lies before the tail window (a huge tool result after it)', async () => {
    const huge: MessageEntry = {
      ...answers('r1', 'y'),
      content: [{ type: 'tool_result', toolUseId: 'y', content: 'o'.repeat(64 * 1024) }],
    };
    await store.append('s1', [calls('a1', 'x', 'y'), huge]);
    expect(
      await repairOrphanedToolUses({ storage: store, sessionId: 's1', tailBytes: 4096 }),
    ).toEqual(['x']);
    expect(await findOrphanedToolUses(store.transcriptPath('s1'), { format: 'keel' })).toEqual([]);
  });

  it('looks past the window by scanning back, never by loading the whole transcript', async () => {
    const huge: MessageEntry = {
      ...answers('r1', 'y'),
      content: [{ type: 'tool_result', toolUseId: 'y', content: 'o'.repeat(256 * 1024) }],
    };
    await store.append('s1', [calls('a0', 'done'), answers('r0', 'done')]);
    await store.append('s1', [calls('a1', 'x', 'y'), huge]);
    const inspected: Array<number | undefined> = [];
    // A storage whose whole-transcript reads fail: the repair must not need them.
    const scanOnly: SessionStorage = {
      ...store,
      read: () => Promise.reject(new Error('read() holds the whole transcript in memory')),
      readTail: () => Promise.reject(new Error('readTail() is not needed either')),
      inspectTrailingToolUses(sessionId, options) {
        inspected.push(options?.maxBytes);
        return store.inspectTrailingToolUses(sessionId, options);
      },
    };
    expect(
      await repairOrphanedToolUses({ storage: scanOnly, sessionId: 's1', tailBytes: 4096 }),
    ).toEqual(['x']);
    expect(inspected).toEqual([4096, Number.MAX_SAFE_INTEGER]);
  });

  it('ignores an orphan that is not trailing, and writes nothing', async () => {
    await store.append('s1', [
      calls('a1', 'deep'),
      { ...calls('a2'), content: [{ type: 'text', text: 'later' }] },
    ]);
    const before = await readFile(store.transcriptPath('s1'), 'utf8');
    expect(await repairOrphanedToolUses({ storage: store, sessionId: 's1' })).toEqual([]);
    expect(await readFile(store.transcriptPath('s1'), 'utf8')).toBe(before);
  });

  it('writes through a fence so the turn does not see its own repair as a takeover', async () => {
    await store.append('s1', [calls('a1', 'x')]);
    const fence = createSessionFence({ storage: store, sessionId: 's1' });
    await fence.acquire();
    expect(
      await repairOrphanedToolUses({ storage: store, sessionId: 's1', fence, content: 'gone' }),
    ).toEqual(['x']);
    await fence.release();
    await fence.reacquire();
    await fence.end();
    expect(fence.takeover).toBeUndefined();
    expect((await store.read('s1')).entries.at(-1)).toMatchObject({
      content: [{ toolUseId: 'x', content: 'gone' }],
    });
  });
});
