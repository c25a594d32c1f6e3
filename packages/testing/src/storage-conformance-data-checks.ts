import type { MessageEntry, TranscriptEntry } from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { expect } from 'vitest';
import { storageConformanceEntries, storageUserMessage } from './storage-conformance-fixtures';
import { entryIds, type StorageCheck, settle, withStorage } from './storage-conformance-support';

/** Checks of what is stored and read back: round trip, tail, state, inspection, listing. */
export const storageDataChecks: readonly StorageCheck[] = [
  {
    name: 'reads a missing session as empty, and appends then reads back every entry type (format 2)',
    run: (context) =>
      withStorage(context, async (storage) => {
        const missing = await storage.read('conformance-round-trip');
        expect(missing).toMatchObject({ exists: false, entries: [], issues: [] });
        const entries = storageConformanceEntries();
        await storage.append('conformance-round-trip', entries.slice(0, 3));
        await storage.append('conformance-round-trip', entries.slice(3));
        const read = await storage.read('conformance-round-trip');
        expect(read.exists).toBe(true);
        expect(read.issues).toEqual([]);
        expect(read.version).toBe(TRANSCRIPT_FORMAT_VERSION);
        if (read.header !== undefined) {
          expect(read.header).toMatchObject({
            type: 'header',
            version: TRANSCRIPT_FORMAT_VERSION,
            sessionId: 'conformance-round-trip',
          });
        }
        expect(read.entries).toEqual(entries);
      }),
  },
  {
    name: 'readTail reads at most maxBytes from the end: a suffix of the entries, the last one last',
    run: (context) =>
      withStorage(context, async (storage) => {
        const entries = Array.from({ length: 60 }, (_, index) =>
          storageUserMessage(`tail-${index}`, `${index} ${'x'.repeat(1000)}`),
        );
        await storage.append('conformance-tail', entries.slice(0, 30));
        await storage.append('conformance-tail', entries.slice(30));
        const tail = await storage.readTail('conformance-tail', { maxBytes: 4096 });
        const ids = tail.entries.map((entry) => entry.id);
        expect(ids.length).toBeGreaterThan(0);
        expect(ids.length).toBeLessThan(10);
        expect(ids).toEqual(entries.slice(entries.length - ids.length).map((entry) => entry.id));
        expect(tail.issues).toEqual([]);
        const all = await storage.readTail('conformance-tail', { maxBytes: 64 * 1024 * 1024 });
        expect(all.entries.map((entry) => entry.id)).toEqual(entries.map((entry) => entry.id));
      }),
  },
  {
    name: 'a read that measures its text counts its entries: their JSON, a character past U+00FF as wide',
    run: (context) =>
      withStorage(context, async (storage) => {
        const plain = Array.from({ length: 12 }, (_, index) =>
          storageUserMessage(`text-${index}`, `message ${index}`),
        );
        await storage.append('conformance-text', plain.slice(0, 4));
        for (const entry of plain.slice(4)) await storage.append('conformance-text', [entry]);
        const jsonChars = (entries: readonly TranscriptEntry[]) =>
          entries.reduce((sum, entry) => sum + JSON.stringify(entry).length, 0);
        // `text` is optional: a store that does not measure it leaves it out.
        for (const read of [
          await storage.read('conformance-text'),
          await storage.readTail('conformance-text', { maxBytes: 600 }),
        ]) {
          if (read.text === undefined) continue;
          expect(read.text.wide).toBe(false);
          expect(read.text.chars).toBeGreaterThanOrEqual(jsonChars(read.entries));
          expect(read.text.chars).toBeLessThanOrEqual(
            jsonChars(read.entries) + read.entries.length,
          );
        }
        await storage.append('conformance-text', [storageUserMessage('text-wide', 'メッセージ')]);
        const wide = await storage.read('conformance-text');
        if (wide.text !== undefined) expect(wide.text.wide).toBe(true);
      }),
  },
  {
    name: 'state and compare: unchanged is undefined, a foreign append is seen, an append returns the new state',
    run: (context) =>
      withStorage(context, async (storage) => {
        const id = 'conformance-state';
        const missing = await storage.state(id);
        expect(missing.exists).toBe(false);
        expect(await storage.compare(id, missing)).toBeUndefined();
        const first = await storage.append(id, [storageUserMessage('s1')]);
        expect(await storage.compare(id, missing)).toBe('appended');
        expect(first.state.exists).toBe(true);
        expect(await storage.compare(id, first.state)).toBeUndefined();
        const now = await storage.state(id);
        expect(await storage.compare(id, now)).toBeUndefined();
        // A write this state did not make: another writer's append.
        await storage.append(id, [storageUserMessage('s2')]);
        expect(await storage.compare(id, now)).toBe('appended');
        expect(await storage.compare(id, first.state)).toBe('appended');
        expect(await storage.compare(id, await storage.state(id))).toBeUndefined();
      }),
  },
  {
    name: 'readSince, when a store has it: only what was appended after a state, or undefined once the transcript changed otherwise',
    run: (context) =>
      withStorage(context, async (storage) => {
        if (storage.readSince === undefined) return;
        const id = 'conformance-since';
        const first = await storage.append(id, [
          storageUserMessage('n1'),
          storageUserMessage('n2'),
        ]);
        const unchanged = await storage.readSince(id, first.state);
        expect(unchanged?.entries).toEqual([]);
        const later = [
          storageUserMessage('n3'),
          storageUserMessage('n4'),
          storageUserMessage('n5'),
        ];
        await storage.append(id, later.slice(0, 2));
        await storage.append(id, later.slice(2));
        const since = await storage.readSince(id, first.state);
        expect(since?.issues).toEqual([]);
        expect(since?.entries).toEqual(later);
        expect((await storage.readSince(id, await storage.state(id)))?.entries).toEqual([]);
        // Another transcript's state, one that claims more than was written, or other bytes.
        await storage.append('conformance-since-other', [storageUserMessage('o1')]);
        const other = await storage.state('conformance-since-other');
        expect(await storage.readSince(id, other)).toBeUndefined();
        expect(
          await storage.readSince(id, { ...first.state, size: first.state.size + 4096 }),
        ).toBeUndefined();
        expect(
          await storage.readSince(id, { ...first.state, tailDigest: `x${first.state.tailDigest}` }),
        ).toBeUndefined();
        const missing = await storage.state('conformance-since-missing');
        expect(await storage.readSince('conformance-since-missing', first.state)).toBeUndefined();
        expect(missing.exists).toBe(false);
      }),
  },
  {
    name: 'a batch is appended whole and contiguous, even with concurrent appends',
    run: (context) =>
      withStorage(context, async (storage) => {
        const id = 'conformance-batches';
        const batch = (name: string) =>
          Array.from({ length: 20 }, (_, index) => storageUserMessage(`${name}-${index}`));
        await Promise.all(['a', 'b', 'c'].map((name) => storage.append(id, batch(name))));
        const ids = await entryIds(storage, id);
        expect(ids).toHaveLength(60);
        for (const name of ['a', 'b', 'c']) {
          const first = ids.indexOf(`${name}-0`);
          expect(ids.slice(first, first + 20)).toEqual(batch(name).map((entry) => entry.id));
        }
      }),
  },
  {
    name: 'a batch with an invalid entry is refused whole: nothing of it is written',
    run: (context) =>
      withStorage(context, async (storage) => {
        const id = 'conformance-invalid';
        await storage.append(id, [storageUserMessage('before')]);
        const invalid = {
          ...storageUserMessage('bad'),
          role: 'robot',
        } as unknown as MessageEntry;
        const outcome = await settle(
          storage.append(id, [
            storageUserMessage('valid-1'),
            invalid,
            storageUserMessage('valid-2'),
          ]),
        );
        expect(outcome.ok, 'an entry with role "robot" was accepted').toBe(false);
        expect(await entryIds(storage, id)).toEqual(['before']);
      }),
  },
  {
    name: 'a turn end keeps its usage (cache counts included) and one with bad usage is refused',
    run: (context) =>
      withStorage(context, async (storage) => {
        const id = 'conformance-turn-usage';
        const end = (entryId: string, usage: unknown) =>
          ({
            type: 'turn',
            id: entryId,
            timestamp: '2026-01-01T00:00:00.000Z',
            turnId: 'turn-1',
            phase: 'end',
            outcome: 'reply',
            usage,
          }) as unknown as TranscriptEntry;
        const usage = { inputTokens: 12, outputTokens: 3, cacheReadTokens: 8, cacheWriteTokens: 2 };
        await storage.append(id, [end('good', usage)]);
        const refused = await settle(
          storage.append(id, [end('bad', { inputTokens: 'twelve', outputTokens: 3 })]),
        );
        expect(refused.ok, 'a turn with usage.inputTokens "twelve" was accepted').toBe(false);
        const read = await storage.read(id);
        expect(read.entries).toMatchObject([{ id: 'good', usage }]);
      }),
  },
  {
    name: 'inspectTrailingToolUses names only the unanswered calls of the last assistant message',
    run: (context) =>
      withStorage(context, async (storage) => {
        const id = 'conformance-inspect';
        expect(await storage.inspectTrailingToolUses(id)).toEqual({ orphans: [], complete: true });
        const assistant = (entryId: string, calls: string[]): TranscriptEntry => ({
          type: 'message',
          id: entryId,
          messageId: entryId,
          timestamp: '2026-01-01T00:00:00.000Z',
          role: 'assistant',
          content: calls.map((call) => ({ type: 'tool_use', id: call, name: 'Bash', input: {} })),
        });
        const answer = (entryId: string, call: string): TranscriptEntry => ({
          type: 'message',
          id: entryId,
          messageId: entryId,
          timestamp: '2026-01-01T00:00:00.000Z',
          role: 'tool',
          content: [{ type: 'tool_result', toolUseId: call, content: 'ok' }],
        });
        await storage.append(id, [storageUserMessage('q1'), assistant('a1', ['old'])]);
        await storage.append(id, [storageUserMessage('q2'), assistant('a2', ['t1', 't2'])]);
        await storage.append(id, [answer('r1', 't1')]);
        expect(await storage.inspectTrailingToolUses(id)).toEqual({
          orphans: ['t2'],
          complete: true,
        });
        await storage.append(id, [answer('r2', 't2')]);
        expect((await storage.inspectTrailingToolUses(id)).orphans).toEqual([]);
      }),
  },
  {
    name: 'list names every session with a transcript, and only those',
    run: (context) =>
      withStorage(context, async (storage) => {
        expect(await storage.list()).toEqual([]);
        await storage.append('conformance-list-a', [storageUserMessage('1')]);
        await storage.append('conformance-list-b', [storageUserMessage('2')]);
        const lease = await storage.lease('conformance-list-leased-only');
        await lease.release();
        expect([...(await storage.list())].sort()).toEqual([
          'conformance-list-a',
          'conformance-list-b',
        ]);
      }),
  },
];
