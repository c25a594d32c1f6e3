import { afterEach, describe, expect, it } from 'vitest';
import { MISSING_TOOL_RESULT } from '../src/index';
import { trailingOrphans } from '../src/trailing-orphans';
import { createHarness, type Harness } from './harness';
import { lines, transcript } from './transcript-builder';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const tools = {
  definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
  async run() {
    return { content: 'found' };
  },
};

/** The stored transcript's messages as `role: text` lines. */
async function storedLines(h: Harness, sessionId: string) {
  const entries = await h.entries(sessionId);
  return lines(entries.flatMap((entry) => (entry.type === 'message' ? [entry] : [])));
}

describe('the turn-start repair writes a result for a crash’s orphaned tool call', () => {
  it('a transcript ending in an unanswered tool_use: the next turn stores an error result for it before the new message', async () => {
    harness = await createHarness({ tools });
    const crashed = transcript().user('look it up', 'm1').start('t1', 'm1').toolUse('u1');
    await harness.storage.append('s1', crashed.entries);
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'still there?' });
    expect(outcome.kind).toBe('reply');
    expect(await storedLines(harness, 's1')).toEqual([
      'user: look it up',
      'assistant: use:u1',
      'tool: result:u1!',
      'user: still there?',
      expect.stringMatching(/^assistant: /),
    ]);
    const repair = (await harness.entries('s1')).find(
      (entry) => entry.type === 'message' && entry.role === 'tool',
    );
    expect(repair).toMatchObject({
      content: [
        { type: 'tool_result', toolUseId: 'u1', content: MISSING_TOOL_RESULT, isError: true },
      ],
    });
    expect(trailingOrphans(await harness.entries('s1'))).toEqual([]);
    expect(harness.refused()).toEqual([]);
  });
});

describe('the per-call repair pairs what the turn-start repair does not see', () => {
  it('an unanswered tool_use earlier in the transcript (an older writer’s): the request is paired, the strict provider answers', async () => {
    harness = await createHarness({ tools });
    const older = transcript()
      .user('look it up', 'm1')
      .start('t1', 'm1')
      .toolUse('u1')
      .end('t1', 'm1', { outcome: 'error' })
      .user('anything else?', 'm2')
      .start('t2', 'm2')
      .assistant('No.')
      .end('t2', 'm2');
    await harness.storage.append('s1', older.entries);
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'bye' });
    expect(outcome.kind).toBe('reply');
    expect(harness.refused()).toEqual([]);
    expect(harness.sent()).toHaveLength(1);
    // The stored transcript is left as it was: the repair is the request's only.
    expect((await storedLines(harness, 's1')).slice(0, 2)).toEqual([
      'user: look it up',
      'assistant: use:u1',
    ]);
  });

  it('a tool result whose call a compaction summarized away: dropped from the request, the strict provider answers', async () => {
    harness = await createHarness({ tools });
    const compacted = transcript()
      .user('look it up', 'm1')
      .start('t1', 'm1')
      .toolUse('u1')
      .toolResult('u1', 'found it')
      .assistant('It is there.')
      .end('t1', 'm1');
    const kept = compacted.entries[3]!.id;
    compacted.compaction('## Goal\nLook it up.', kept);
    await harness.storage.append('s1', compacted.entries);
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'thanks' });
    expect(outcome.kind).toBe('reply');
    expect(harness.refused()).toEqual([]);
    const sent = JSON.stringify(harness.mock.requests.at(-1)!.body);
    expect(sent).not.toContain('tool_result');
    expect(sent).toContain('It is there.');
  });
});
