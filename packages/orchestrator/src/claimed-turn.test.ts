/**
 * Two orchestrators ("gateways" a and b) over one sessions folder, each with its own file store,
 * a `gatewayId` and the loopback mock provider: a message sent to b while a runs the session's
 * turn is queued there and answered once by a, the model asked once per message, no `resend`;
 * b's request answers from that outcome, and a retry of its `clientMessageId` at either gateway
 * asks the model nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTranscriptStore } from '@keel/session-fence';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, createGateway, type Gateway } from '../test/two-gateways';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A gateway of `../test/two-gateways.ts`, shut down after the test. */
function gateway(
  id: string,
  sessionsDir: string,
  mock: MockProvider,
  gate: () => Promise<void>,
): Gateway {
  const made = createGateway(id, sessionsDir, mock, gate);
  cleanup.push(() => made.orchestrator.shutdown({ graceMs: 0 }));
  return made;
}

describe('turn claims across two gateways', () => {
  it('a message sent to b while a runs the turn is answered once, by a', async () => {
    const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-claims-'));
    cleanup.push(() => rm(sessionsDir, { recursive: true, force: true }));
    const mock = await createMockProvider({});
    cleanup.push(() => mock.close());
    let gate = createGate();
    const a = gateway('a', sessionsDir, mock, () => gate.wait());
    const b = gateway('b', sessionsDir, mock, async () => undefined);

    const first = a.orchestrator.runTurn({
      sessionId: 's1',
      input: 'first',
      clientMessageId: 'c1',
    });
    // a's model call has started: a holds the claim; b gets the second message meanwhile.
    await gate.reached;
    const second = b.orchestrator.runTurn({
      sessionId: 's1',
      input: 'second',
      clientMessageId: 'c2',
    });
    await b.queued;
    gate.open();
    const [one, two] = await Promise.all([first, second]);
    expect(one).toMatchObject({ kind: 'reply', clientMessageId: 'c1' });
    expect(two).toMatchObject({ kind: 'reply', clientMessageId: 'c2' });
    expect(two.turnId).not.toBe(one.turnId);
    // Each message reached the model once, both through gateway a.
    expect(mock.requests.map((request) => request.apiKey)).toEqual(['key-a', 'key-a']);
    expect(JSON.stringify(mock.requests[1]?.body)).toContain('second');
    // Retries of c2 at either gateway: the stored answer, no model request.
    for (const g of [a, b]) {
      const again = await g.orchestrator.runTurn({
        sessionId: 's1',
        input: 'second',
        clientMessageId: 'c2',
      });
      expect(again).toMatchObject({ kind: 'reply', turnId: two.turnId, text: two.text });
    }
    expect(mock.requests).toHaveLength(2);
    // A retry of c2 at b while a runs another turn: read from the transcript, not queued again.
    gate = createGate();
    const third = a.orchestrator.runTurn({
      sessionId: 's1',
      input: 'third',
      clientMessageId: 'c3',
    });
    await gate.reached;
    const retried = await b.orchestrator.runTurn({
      sessionId: 's1',
      input: 'second',
      clientMessageId: 'c2',
    });
    gate.open();
    expect(retried).toMatchObject({ kind: 'reply', turnId: two.turnId });
    expect(await third).toMatchObject({ kind: 'reply', clientMessageId: 'c3' });
    await a.orchestrator.shutdown();
    expect(mock.requests).toHaveLength(3);
  });

  it('a message queued for a gateway that died mid-turn is answered once its claim expires', async () => {
    const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-claims-'));
    cleanup.push(() => rm(sessionsDir, { recursive: true, force: true }));
    const mock = await createMockProvider({});
    cleanup.push(() => mock.close());
    // Gateway "dead" claimed the session's turn, then stopped heartbeating (killed or frozen).
    const dead = createTranscriptStore({ sessionsDir, fsync: false }).turnClaims;
    const taken = await dead?.claimTurn('s1', { owner: 'dead', turnId: 't0', ttlMs: 300 });
    expect(taken?.claimed).toBe(true);
    const b = gateway('b', sessionsDir, mock, async () => undefined);
    const answer = await b.orchestrator.runTurn({
      sessionId: 's1',
      input: 'anyone there?',
      clientMessageId: 'c1',
    });
    expect(answer).toMatchObject({ kind: 'reply', clientMessageId: 'c1' });
    expect(mock.requests.map((request) => request.apiKey)).toEqual(['key-b']);
  });

  it('a message without a client id, queued for a dead gateway, is written once and answered once', async () => {
    const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-claims-'));
    cleanup.push(() => rm(sessionsDir, { recursive: true, force: true }));
    const mock = await createMockProvider({});
    cleanup.push(() => mock.close());
    const store = createTranscriptStore({ sessionsDir, fsync: false });
    const taken = await store.turnClaims?.claimTurn('s1', {
      owner: 'dead',
      turnId: 't0',
      ttlMs: 300,
    });
    expect(taken?.claimed).toBe(true);
    const b = gateway('b', sessionsDir, mock, async () => undefined);
    // b writes the message as queued for "dead", finds the claim free once it expires and runs
    // the turn itself: for the message it stored, not a second copy of its input.
    const answer = await b.orchestrator.runTurn({ sessionId: 's1', input: 'no id here' });
    expect(answer).toMatchObject({ kind: 'reply' });
    const texts = (await store.read('s1')).entries.flatMap((entry) =>
      entry.type === 'message' && entry.role === 'user' ? [JSON.stringify(entry.content)] : [],
    );
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain('no id here');
    expect(mock.requests).toHaveLength(1);
    expect(JSON.stringify(mock.requests[0]?.body).split('no id here')).toHaveLength(2);
  });
});
