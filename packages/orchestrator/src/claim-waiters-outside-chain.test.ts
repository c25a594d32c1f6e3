/**
 * Gateway b, while gateway a runs the session's turn: each message b gets is written (queued) at
 * once, not after the answer of the one b got before it, and b answers each as soon as a has
 * stored its answer — a client's retry of a's message at b joins that answer without waiting for
 * b's own messages (session-queue.ts waits for another gateway's turn outside the session's chain).
 */
import { createTranscriptStore } from '@keel/session-fence';
import { afterEach, expect, it } from 'vitest';
import { createGate, startTwoGateways } from '../test/two-gateways';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

it("b writes each message at once and answers a retry of a's message when a stored it", async () => {
  let gate = createGate();
  const { sessionsDir, mock, a, b } = await startTwoGateways(cleanup, () => gate.wait());
  // A failed expectation leaves no model call held.
  cleanup.push(async () => gate.open());
  const send = (g: typeof a, input: string, clientMessageId: string) =>
    g.orchestrator.runTurn({ sessionId: 's1', input, clientMessageId });

  const first = send(a, 'first', 'c0');
  await gate.reached; // a holds the claim, its model call held
  const second = send(b, 'second', 'c1');
  await b.queued;
  // b runs no turn of s1: its message waits for a's, as a queued turn.
  await expect
    .poll(() => b.orchestrator.stats(), { timeout: 30_000, interval: 5 })
    .toEqual({ runningTurns: 0, queuedTurns: 1 });
  expect(b.orchestrator.isRunning('s1')).toBe(true);
  expect(b.orchestrator.isRunning('s2')).toBe(false);
  const third = send(b, 'third', 'c2');
  const retry = send(b, 'first', 'c0');

  // c2 is in the transcript while a's first turn still runs.
  const store = createTranscriptStore({ sessionsDir, fsync: false });
  const clientIds = async () =>
    (await store.read('s1')).entries.flatMap((entry) =>
      entry.type === 'message' && entry.clientMessageId !== undefined
        ? [entry.clientMessageId]
        : [],
    );
  await expect.poll(clientIds, { timeout: 30_000, interval: 20 }).toContain('c2');
  expect(mock.requests).toHaveLength(1);

  // a's first turn ends; its next model call (c1's turn) is held.
  const held = gate;
  gate = createGate();
  held.open();
  await gate.reached;
  const one = await first;
  // b's retry of c0 has its answer while c1's turn, which b also waits for, is still held.
  const again = await retry;
  expect(again).toMatchObject({ kind: 'reply', clientMessageId: 'c0', turnId: one.turnId });
  expect(again.text).toBe(one.text);
  expect(mock.requests).toHaveLength(2);

  const last = gate;
  gate = createGate();
  gate.open();
  last.open();
  const [two, three] = await Promise.all([second, third]);
  expect(two).toMatchObject({ kind: 'reply', clientMessageId: 'c1' });
  expect(three).toMatchObject({ kind: 'reply', clientMessageId: 'c2' });
  // One model request per message, the retry none.
  expect(mock.requests).toHaveLength(3);
}, 60_000);

it("a message waiting for a's turn ends with b's shutdown, which waits for it", async () => {
  const gate = createGate();
  const { a, b } = await startTwoGateways(cleanup, () => gate.wait());
  cleanup.push(async () => gate.open());

  const first = a.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
  await gate.reached;
  let settled = false;
  const second = b.orchestrator.runTurn({ sessionId: 's1', input: 'second' });
  void second.finally(() => {
    settled = true;
  });
  await b.queued;
  await b.orchestrator.shutdown({ graceMs: 0 });
  expect(settled).toBe(true);
  expect(await second).toMatchObject({ kind: 'aborted' });
  gate.open();
  expect(await first).toMatchObject({ kind: 'reply' });
}, 60_000);
