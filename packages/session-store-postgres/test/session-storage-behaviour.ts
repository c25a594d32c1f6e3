/**
 * What the spec's `SessionStorage` port promises, as tests any store must pass: transcripts,
 * states and fenced appends (this file) and leases (`session-lease-behaviour.ts`). It runs
 * against this package's store and, as a check that it asks for the port and nothing more,
 * against the file store of `@keel/session-fence`. `@keel/testing`'s conformance suite joins it
 * with one line in each test file once it lands.
 */
import type { SessionStorage, TranscriptEntry } from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { describeSessionLeaseBehaviour } from './session-lease-behaviour';
import { takeoverOf } from './takeover-of';
import {
  assistantText,
  message,
  otherEntries,
  sessionIdFor,
  toolCalls,
  toolResults,
  userText,
} from './transcript-fixtures';

export interface SessionStorageBehaviourOptions {
  /** A handle on the store under test. Every call gives one on the same data, as each gateway has its own. */
  create(): SessionStorage | Promise<SessionStorage>;
}

export function describeSessionStorageBehaviour(
  name: string,
  options: SessionStorageBehaviourOptions,
): void {
  describe(`${name}: transcripts`, () => {
    it('a missing transcript reads as empty, has the missing state and no orphans', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('missing');
      const read = await storage.read(sessionId);
      expect(read).toMatchObject({ exists: false, entries: [], issues: [], header: undefined });
      const state = await storage.state(sessionId);
      expect(state.exists).toBe(false);
      expect(await storage.compare(sessionId, state)).toBeUndefined();
      expect(await storage.inspectTrailingToolUses(sessionId)).toEqual({
        orphans: [],
        complete: true,
      });
      expect(await storage.list()).not.toContain(sessionId);
    });

    it('append creates the transcript with a current header; entries read back in order', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('append');
      const { messageId: _dropped, ...withoutMessageId } = userText('no messageId');
      const entries = [
        userText('hello'),
        assistantText('hi'),
        withoutMessageId,
        ...otherEntries(),
      ] as TranscriptEntry[];
      await storage.append(sessionId, entries.slice(0, 2));
      await storage.append(sessionId, entries.slice(2));
      const read = await storage.read(sessionId);
      expect(read.exists).toBe(true);
      expect(read.header).toMatchObject({
        type: 'header',
        version: TRANSCRIPT_FORMAT_VERSION,
        sessionId,
      });
      expect(read.version).toBe(TRANSCRIPT_FORMAT_VERSION);
      expect(read.issues).toEqual([]);
      expect(read.entries).toEqual([
        entries[0],
        entries[1],
        { ...withoutMessageId, messageId: withoutMessageId.id },
        ...entries.slice(3),
      ]);
      expect(await storage.list()).toContain(sessionId);
    });

    it('keeps any text exactly: NUL characters, emoji, other scripts, quotes and newlines', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('text');
      const text = 'nul:\u0000 emoji:🦀 cjk:漢字 rtl:שלום quote:" backslash:\\ newline:\n tab:\t';
      await storage.append(sessionId, [userText(text)]);
      const [entry] = (await storage.read(sessionId)).entries;
      expect(entry).toMatchObject({ content: [{ type: 'text', text }] });
    });

    it("append's state is the transcript's state; a later write shows as appended", async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('state');
      const { state } = await storage.append(sessionId, [userText('one')]);
      expect(state).toEqual(await storage.state(sessionId));
      expect(await storage.compare(sessionId, state)).toBeUndefined();
      const missing = { ...state, exists: false, identity: '', size: 0, tailDigest: '' };
      expect(await storage.compare(sessionId, { ...missing, tailLength: 0 })).toBe('appended');
      const other = await options.create();
      await other.append(sessionId, [assistantText('two')]);
      expect(await storage.compare(sessionId, state)).toBe('appended');
    });

    it('an append whose expected state no longer holds is refused, naming the change, and writes nothing', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('expected');
      const { state } = await storage.append(sessionId, [userText('one')]);
      await (await options.create()).append(sessionId, [userText('from elsewhere')]);
      const now = await storage.state(sessionId);
      const refused = await takeoverOf(
        storage.append(sessionId, [assistantText('late')], { expected: state }),
      );
      expect(refused).toMatchObject({ change: 'appended', phase: 'write', sessionId });
      expect(await storage.state(sessionId)).toEqual(now);

      const fresh = sessionIdFor('expected-missing');
      const missing = await storage.state(fresh);
      await storage.append(fresh, [userText('created')], { expected: missing });
      const again = await takeoverOf(
        storage.append(fresh, [userText('again')], { expected: missing }),
      );
      expect(again.change).toBe('appended');

      const gone = await takeoverOf(
        storage.append(sessionIdFor('never'), [userText('x')], { expected: state }),
      );
      expect(gone.change).toBe('missing');
      expect((await storage.read(fresh)).entries).toHaveLength(1);
    });

    it('an append with an invalid entry writes nothing, not even the transcript', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('invalid');
      const bad = { ...userText('bad'), role: 'robot' } as unknown as TranscriptEntry;
      await expect(storage.append(sessionId, [userText('good'), bad])).rejects.toThrow(
        /entry 1 is invalid/,
      );
      expect((await storage.state(sessionId)).exists).toBe(false);
      await storage.append(sessionId, [userText('good')]);
      const before = await storage.state(sessionId);
      await expect(storage.append(sessionId, [bad, userText('good')])).rejects.toThrow(
        /entry 0 is invalid/,
      );
      expect(await storage.state(sessionId)).toEqual(before);
    });

    it('readTail returns only the entries at the end, within maxBytes', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('tail');
      const entries = Array.from({ length: 20 }, (_, index) =>
        userText(`line ${index} ${'x'.repeat(200)}`),
      );
      await storage.append(sessionId, entries);
      const tail = await storage.readTail(sessionId, { maxBytes: 1200 });
      expect(tail.entries.length).toBeGreaterThan(0);
      expect(tail.entries.length).toBeLessThan(6);
      expect(tail.entries).toEqual(entries.slice(-tail.entries.length));
      expect((await storage.readTail(sessionId)).entries).toEqual(entries);
    });

    it('inspectTrailingToolUses finds the unanswered calls of the last assistant message only', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('orphans');
      await storage.append(sessionId, [userText('go'), toolCalls('old'), userText('never mind')]);
      expect((await storage.inspectTrailingToolUses(sessionId)).orphans).toEqual(['old']);
      await storage.append(sessionId, [toolCalls('a', 'b', 'c'), toolResults('b')]);
      expect(await storage.inspectTrailingToolUses(sessionId)).toEqual({
        orphans: ['a', 'c'],
        complete: true,
      });
      await storage.append(sessionId, [toolResults('a', 'c'), assistantText('done')]);
      expect((await storage.inspectTrailingToolUses(sessionId)).orphans).toEqual([]);
    });

    it('inspectTrailingToolUses claims nothing when the last assistant message is beyond the bound', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('bounded');
      const long = message('tool', [
        { type: 'tool_result', toolUseId: 'other', content: 'y'.repeat(5000) },
      ]);
      await storage.append(sessionId, [toolCalls('far'), long]);
      expect(await storage.inspectTrailingToolUses(sessionId, { maxBytes: 1000 })).toEqual({
        orphans: [],
        complete: false,
      });
      expect((await storage.inspectTrailingToolUses(sessionId)).orphans).toEqual(['far']);
    });

    it('refuses an invalid session id', async () => {
      const storage = await options.create();
      for (const bad of ['', '../escape', 'a/b', '-leading', 'x'.repeat(129)]) {
        await expect(storage.read(bad), bad).rejects.toThrow(/session id/i);
        await expect(storage.append(bad, [userText('x')]), bad).rejects.toThrow(/session id/i);
      }
    });

    it('an aborted signal stops a call before it reads or writes', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('abort');
      const signal = AbortSignal.abort(new Error('stop'));
      await expect(storage.read(sessionId, { signal })).rejects.toThrow('stop');
      await expect(storage.append(sessionId, [userText('x')], { signal })).rejects.toThrow('stop');
      await expect(storage.lease(sessionId, { signal })).rejects.toThrow('stop');
      expect((await storage.state(sessionId)).exists).toBe(false);
    });
  });

  describeSessionLeaseBehaviour(name, options);
}
