/**
 * Messages another gateway queued for a running turn (`turnClaims.appendQueued` through a second
 * file store over the same sessions folder, as a second gateway writes them): the turn's fence
 * adopts them, and this orchestrator answers each exactly like a message queued through the
 * running turn here — answered once, the model asked once per message, no `resend`.
 */
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { MessageEntry, TurnEvent, TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../test/harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function queuedMessage(id: string, text: string): MessageEntry {
  return {
    type: 'message',
    id,
    messageId: id,
    clientMessageId: `client-${id}`,
    timestamp: new Date().toISOString(),
    role: 'user',
    content: [{ type: 'text', text }],
  };
}

/** Writes `message` as queued from a second gateway's store over the harness's sessions folder. */
async function queueFromOtherGateway(h: Harness, message: MessageEntry): Promise<void> {
  const other = createTranscriptStore({ sessionsDir: h.sessionsDir, fsync: false });
  if (other.turnClaims === undefined) throw new Error('the file store has no turn claims');
  await other.turnClaims.appendQueued('s1', [message]);
}

function turnEnds(h: Harness) {
  return h.events.flatMap((event) => (event.type === 'turn-end' ? [event.outcome] : []));
}

/** Resolves once an event satisfies `predicate` (recorded already, or as it arrives). */
function eventually(h: Harness, predicate: (event: TurnEvent) => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (h.events.some(predicate)) return resolve();
    const off = h.orchestrator.subscribe((event) => {
      if (!predicate(event)) return;
      off();
      resolve();
    });
  });
}

describe('queued messages of another gateway, adopted by the running turn', () => {
  it('followup: answered by the next turn here, once, with one model request', async () => {
    const queued = queuedMessage('q1', 'queued at another gateway');
    let calls = 0;
    harness = await createHarness({
      beforeStreamEnds: async () => {
        calls += 1;
        if (calls === 1) await queueFromOtherGateway(harness!, queued);
      },
    });
    const h = harness;
    const first = await h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await eventually(
      h,
      (event) => event.type === 'turn-end' && event.outcome.messageId === queued.messageId,
    );
    await h.orchestrator.shutdown();
    expect(first.kind).toBe('reply');
    expect(h.events).toContainEqual(
      expect.objectContaining({ type: 'message-queued', messageId: 'q1', turnId: first.turnId }),
    );
    const answer = turnEnds(h).find((outcome) => outcome.messageId === 'q1');
    expect(answer).toMatchObject({ kind: 'reply', clientMessageId: 'client-q1' });
    expect(answer?.turnId).not.toBe(first.turnId);
    expect(turnEnds(h).map((outcome) => outcome.kind)).toEqual(['reply', 'reply']);
    expect(h.sent()).toHaveLength(2);
    expect(JSON.stringify(h.mock.requests[1]?.body)).toContain('queued at another gateway');
    // The client retries the message here: the stored answer, no model request.
    const retried = await h.orchestrator.runTurn({
      sessionId: 's1',
      input: 'queued at another gateway',
      clientMessageId: 'client-q1',
    });
    expect(retried).toMatchObject({ kind: 'reply', turnId: answer?.turnId, messageId: 'q1' });
    expect(h.sent()).toHaveLength(2);
  });

  it('steer: folded into the running turn at its next model call, and answered by it', async () => {
    const queued = queuedMessage('q1', 'also consider this');
    let calls = 0;
    harness = await createHarness({
      overrides: { queueMode: 'steer' },
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          return { content: 'looked up' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 'tool-1', name: 'lookup', input: {} }] },
          match: { model: 'primary' },
        },
      ],
      beforeStreamEnds: async () => {
        calls += 1;
        if (calls === 1) await queueFromOtherGateway(harness!, queued);
      },
    });
    const h = harness;
    const first = await h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await h.orchestrator.shutdown();
    expect(first).toMatchObject({ kind: 'reply', steeredMessageIds: ['q1'] });
    expect(h.sent()).toHaveLength(2);
    expect(JSON.stringify(h.mock.requests[1]?.body)).toContain('also consider this');
    // The turn queued for it here found the answer stored and ran nothing.
    expect(turnEnds(h).filter((outcome) => outcome.kind !== 'reply')).toEqual([]);
    const retried = await h.orchestrator.runTurn({
      sessionId: 's1',
      input: 'also consider this',
      clientMessageId: 'client-q1',
    });
    expect(retried).toMatchObject({ kind: 'reply', turnId: first.turnId, messageId: 'q1' });
    expect(h.sent()).toHaveLength(2);
  });

  it.each(['followup', 'steer'] as const)(
    '%s: a retry sent here while the reacquire adopts its queued copy: stored once, answered once, by the copy',
    async (queueMode) => {
      // The client's first try reached another gateway, which queued it; the retry comes here
      // while the running turn's model call ends: it is looked for before the fence's reacquire
      // adopts the copy, and its write waits behind that reacquire.
      const queued = queuedMessage('q1', 'sent twice');
      let retry: Promise<TurnOutcome> | undefined;
      harness = await createHarness({
        overrides: {
          queueMode,
          fences: (sessionId) => {
            const fence = createSessionFence({ storage: harness!.storage, sessionId });
            const reacquire = fence.reacquire.bind(fence);
            return Object.assign(fence, {
              async reacquire(options?: Parameters<typeof reacquire>[0]) {
                if (retry !== undefined) return reacquire(options);
                await queueFromOtherGateway(harness!, queued);
                const reacquired = reacquire(options);
                retry = harness!.orchestrator.runTurn({
                  sessionId: 's1',
                  input: 'sent twice',
                  clientMessageId: 'client-q1',
                });
                return reacquired;
              },
            });
          },
        },
      });
      const h = harness;
      const first = await h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
      const retried = await retry!;
      await h.orchestrator.shutdown();
      expect(first.kind).toBe('reply');
      const stored = (await h.entries('s1')).filter(
        (entry) => entry.type === 'message' && entry.clientMessageId === 'client-q1',
      );
      expect(stored.map((entry) => entry.id)).toEqual(['q1']);
      expect(retried).toMatchObject({
        kind: 'reply',
        messageId: 'q1',
        clientMessageId: 'client-q1',
      });
      expect(turnEnds(h).filter((outcome) => outcome.messageId === 'q1')).toHaveLength(1);
      expect(h.sent()).toHaveLength(2);
    },
  );
});
