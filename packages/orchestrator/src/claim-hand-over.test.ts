/**
 * A turn that ends while another turn of its session waits here (a message another gateway
 * queued, adopted by the turn) hands its turn claim to that turn: nothing is released and nothing
 * claimed anew, so the gateway that queued the message never finds the turn free and never races
 * the owner for it. The waiting gateway's poll is ten minutes: only the store's announcement of
 * the answer can wake it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTranscriptStore } from '@keel/session-fence';
import type { TurnOutcome } from '@keel/spec';
import { createMockProvider } from '@keel/testing';
import { afterEach, expect, it } from 'vitest';
import { createGate, createGateway } from '../test/two-gateways';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

it('the owner answers an adopted message under the claim of the turn before it', async () => {
  const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-hand-over-'));
  cleanup.push(() => rm(sessionsDir, { recursive: true, force: true }));
  const mock = await createMockProvider({});
  cleanup.push(() => mock.close());
  const observer = createTranscriptStore({ sessionsDir, fsync: false }).turnClaims;
  if (observer === undefined) throw new Error('the file store has no turn claims');
  // a's first model call waits for `first`, its second for `second`; b asking the model at all
  // means b took the turn.
  const first = createGate();
  const second = createGate();
  let calls = 0;
  const a = createGateway('a', sessionsDir, mock, () => {
    calls += 1;
    return calls === 1 ? first.wait() : second.wait();
  });
  let bAsked: () => void = () => undefined;
  const bAsks = new Promise<'b asked the model'>((resolve) => {
    bAsked = () => resolve('b asked the model');
  });
  const b = createGateway('b', sessionsDir, mock, async () => bAsked(), { pollMs: 600_000 });
  cleanup.push(() => a.orchestrator.shutdown({ graceMs: 0 }));
  cleanup.push(() => b.orchestrator.shutdown({ graceMs: 0 }));
  // A failed expectation leaves no model call waiting (cleanup runs last to first).
  cleanup.push(async () => {
    first.open();
    second.open();
  });

  const one = a.orchestrator.runTurn({ sessionId: 's1', input: 'first', clientMessageId: 'c1' });
  await first.reached;
  const during = await observer.currentTurn('s1');
  expect(during?.owner).toBe('a');
  const two = b.orchestrator.runTurn({ sessionId: 's1', input: 'second', clientMessageId: 'c2' });
  await b.queued;
  first.open();
  // The turn for c2 asks the model: at a, under the claim c1's turn took.
  await expect(Promise.race([second.reached.then(() => 'a asked'), bAsks])).resolves.toBe(
    'a asked',
  );
  // The same claim (token and turn id): nothing was released or claimed in between.
  expect(await observer.currentTurn('s1')).toEqual(during);
  second.open();
  const [answerOne, answerTwo] = await Promise.all([one, two]);
  expect(answerOne).toMatchObject({ kind: 'reply', clientMessageId: 'c1' });
  expect(answerTwo).toMatchObject({ kind: 'reply', clientMessageId: 'c2' });
  expect(mock.requests.map((request) => request.apiKey)).toEqual(['key-a', 'key-a']);
  // With no turn left waiting, the last turn let the claim go.
  await a.orchestrator.shutdown();
  expect(await observer.currentTurn('s1')).toBeUndefined();
});

it('a message another gateway queues between two turns here is adopted by the second', async () => {
  const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-hand-over-'));
  cleanup.push(() => rm(sessionsDir, { recursive: true, force: true }));
  const mock = await createMockProvider({});
  cleanup.push(() => mock.close());
  const first = createGate();
  let calls = 0;
  let bAsked = false;
  const b = createGateway(
    'b',
    sessionsDir,
    mock,
    async () => {
      bAsked = true;
    },
    { pollMs: 600_000 },
  );
  let third: Promise<TurnOutcome> | undefined;
  let acquires = 0;
  const a = createGateway(
    'a',
    sessionsDir,
    mock,
    () => {
      calls += 1;
      return calls === 1 ? first.wait() : Promise.resolve();
    },
    {
      // Before a's second turn takes the session (its first turn has ended, the claim is
      // handed over): b gets a message and queues it.
      async beforeAcquire() {
        acquires += 1;
        if (acquires !== 2) return;
        third = b.orchestrator.runTurn({ sessionId: 's1', input: 'third', clientMessageId: 'c3' });
        await b.queued;
      },
    },
  );
  cleanup.push(() => a.orchestrator.shutdown({ graceMs: 0 }));
  cleanup.push(() => b.orchestrator.shutdown({ graceMs: 0 }));
  cleanup.push(async () => first.open());

  const one = a.orchestrator.runTurn({ sessionId: 's1', input: 'first', clientMessageId: 'c1' });
  await first.reached;
  // Queued here behind the first turn: the first turn hands its claim over to it.
  const two = a.orchestrator.runTurn({ sessionId: 's1', input: 'second', clientMessageId: 'c2' });
  first.open();
  const answerTwo = await two;
  // The second turn took c3 in as it took the session, as a turn's fence adopts a queued message.
  const queued = a.events.find(
    (event) => event.type === 'message-queued' && event.turnId === answerTwo.turnId,
  );
  expect(queued).toBeDefined();
  const answerThree = await third;
  expect(await one).toMatchObject({ kind: 'reply', clientMessageId: 'c1' });
  expect(answerTwo).toMatchObject({ kind: 'reply', clientMessageId: 'c2' });
  expect(answerThree).toMatchObject({ kind: 'reply', clientMessageId: 'c3' });
  expect(bAsked).toBe(false);
  expect(mock.requests.map((request) => request.apiKey)).toEqual(['key-a', 'key-a', 'key-a']);
});
