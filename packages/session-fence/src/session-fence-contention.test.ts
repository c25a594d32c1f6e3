/**
 * Several processes run turns on one session at once, each releasing the fence around a
 * (simulated) model call. Whatever the interleaving, a turn that finished with a reply saw no
 * foreign write while it was released, and a turn that reported a takeover really had one.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type NodeChild, spawnNodeScript, useTempDir } from '../test/support';
import { createTranscriptStore } from './transcript-store';

const temp = useTempDir();

const turns = `
import { SessionTakeoverError, createSessionFence, createTranscriptStore } from DIST;
const [sessionsDir, name, count] = process.argv.slice(2);
const store = createTranscriptStore({ sessionsDir, fsync: false, lock: { pollMs: 2 } });
const entry = (id, role) => ({ type: 'message', id, timestamp: 't', role, content: [{ type: 'text', text: id }] });
for (let index = 0; index < Number(count); index += 1) {
  const id = name + '-' + index;
  const fence = createSessionFence({ storage: store, sessionId: 's', lockTimeoutMs: 60000 });
  try {
    await fence.acquire();
    await fence.append([entry(id + '-q', 'user')]);
    await fence.release();
    await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 4));
    await fence.reacquire();
    await fence.append([entry(id + '-r', 'assistant')]);
    await fence.end();
    console.log(JSON.stringify({ id, outcome: 'reply' }));
  } catch (error) {
    if (!SessionTakeoverError.isInstance(error)) throw error;
    await fence.end();
    console.log(JSON.stringify({ id, outcome: 'takeover', phase: error.phase }));
  }
}
`;

interface Outcome {
  id: string;
  outcome: 'reply' | 'takeover';
  phase?: string;
}

describe('turns of several processes on one session', () => {
  it('never lose a write: replies are unbroken, takeovers are real', {
    timeout: 60_000,
  }, async () => {
    const sessionsDir = join(temp.path, 'sessions');
    const children: NodeChild[] = await Promise.all(
      ['a', 'b', 'c', 'd'].map((name) =>
        spawnNodeScript(temp.path, `turns-${name}.mjs`, turns, [sessionsDir, name, '15']),
      ),
    );
    const codes = await Promise.all(children.map((child) => child.exited));
    expect(codes, children.map((child) => child.stderr()).join('\n')).toEqual([0, 0, 0, 0]);
    const outcomes: Outcome[] = children.flatMap((child) =>
      child
        .stdout()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Outcome),
    );
    expect(outcomes).toHaveLength(60);

    const read = await createTranscriptStore({ sessionsDir }).read('s');
    expect(read.issues).toEqual([]);
    const ids = read.entries.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    const replies = outcomes.filter((outcome) => outcome.outcome === 'reply');
    expect(ids).toHaveLength(replies.length * 2 + (outcomes.length - replies.length));
    for (const { id, outcome, phase } of outcomes) {
      const question = ids.indexOf(`${id}-q`);
      expect(question, id).toBeGreaterThanOrEqual(0);
      if (outcome === 'reply') {
        // Released between its two writes, and nobody else wrote in between.
        expect(ids[question + 1], id).toBe(`${id}-r`);
      } else {
        expect(phase, id).toBe('prompt_reacquire');
        expect(ids).not.toContain(`${id}-r`);
        // The takeover was real: another turn wrote right after this one's question.
        expect(ids[question + 1], id).toMatch(/-q$/);
      }
    }
  });
});
