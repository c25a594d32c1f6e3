/**
 * A gateway that dies or freezes mid-turn, with another gateway on the same database:
 * - `kill -9` while one turn waits on its model call and another runs a tool (holding its
 *   session's lease): the lease is left behind and expires; the client's retries (same
 *   `clientMessageId`) to the other gateway are answered there; one user message and one turn
 *   end per message, the dead turn's tool call paired.
 * - SIGSTOP past its lease while it holds it (running a tool): the other gateway takes the session
 *   (a newer fencing token) and writes; on SIGCONT the paused turn's write is refused, its turn
 *   ends `resend`, and nothing of it lands after the other gateway's entries.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import type { TranscriptEntry } from '@keel/spec';
import { createMockProvider } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { type ClientAnswer, checkTranscript } from './support/check-transcript';
import { createGates, holding } from './support/gate-plugin';
import { sendMessage } from './support/gateway-process';
import {
  fencingToken,
  leaseRows,
  transcriptOf,
  transcriptReader,
} from './support/postgres-sessions';
import { sharedGatewayConfig } from './support/shared-gateway-config';
import { useGateways } from './support/use-gateways';

const database = useTestDatabase();
const group = useGateways();

const answerOf = (body: Record<string, unknown>) => body as unknown as ClientAnswer;
/** The turn's entries, as `type` or `type:role` (`turn:start`, `message:assistant`). */
const entriesOfTurn = (entries: TranscriptEntry[], turnId: string) =>
  entries
    .filter((entry) => 'turnId' in entry && entry.turnId === turnId)
    .map((entry) =>
      entry.type === 'message'
        ? `message:${entry.role}`
        : `${entry.type}:${entry.type === 'turn' ? entry.phase : ''}`,
    );

async function leaseOf(sessionId: string) {
  const row = (await leaseRows(database)).find((lease) => lease.sessionId === sessionId);
  expect(row, `${sessionId} is leased`).toBeDefined();
  return row!;
}

describe('a gateway that dies or freezes mid-turn', () => {
  it('kill -9: its leases expire, the other gateway answers the retries, nothing lost or doubled', async () => {
    const model = 'killed';
    const mock = await createMockProvider({
      script: [{ behavior: { type: 'hang' }, match: { model } }],
    });
    group.defer(() => mock.close());
    const gates = await createGates(group);
    const config = sharedGatewayConfig({
      mock,
      databaseUrl: database.url,
      model,
      leaseTtlMs: 3_000,
      plugins: [gates.plugin],
      turn: { firstTokenTimeoutMs: 600_000 },
    });
    const a = await group.start({ config });
    const b = await group.start({ config });
    const lost = (sessionId: string, clientMessageId: string, text: string) =>
      sendMessage(a, sessionId, { text, clientMessageId }).then(
        () => 'answered',
        () => 'connection lost',
      );

    // One turn on A waits on its model call (the session let go for it)…
    const stalled = lost('killed-call', 'k1', 'a question for the model');
    await mock.waitForRequests(1);
    // …and another runs a tool, holding its session's lease.
    mock.enqueue({
      behavior: { type: 'ok', toolCalls: [{ name: 'hold', input: { gate: 'never' } }] },
      match: { model },
    });
    const inTool = lost('killed-tool', 'k2', 'run the long tool');
    const holdingTool = await a.waitForLog(holding('never'));
    const left = await leaseOf('killed-tool');
    expect(left.holder).toContain(`:${a.child.pid}:`);

    await group.kill(a);
    expect(await stalled).toBe('connection lost');
    expect(await inTool).toBe('connection lost');
    // The dead gateway's lease is still there: only its expiry lets another gateway in.
    expect((await leaseOf('killed-tool')).token).toBe(left.token);

    const [retryCall, retryTool] = await Promise.all([
      sendMessage(b, 'killed-call', { text: 'a question for the model', clientMessageId: 'k1' }),
      sendMessage(b, 'killed-tool', { text: 'run the long tool', clientMessageId: 'k2' }),
    ]);
    expect(retryCall.body).toMatchObject({ outcome: 'reply', clientMessageId: 'k1' });
    expect(retryTool.body).toMatchObject({ outcome: 'reply', clientMessageId: 'k2' });
    expect(await fencingToken(database, 'killed-tool')).toBeGreaterThan(left.token);

    const reader = transcriptReader(database);
    for (const [sessionId, clientMessageId, answer] of [
      ['killed-call', 'k1', retryCall],
      ['killed-tool', 'k2', retryTool],
    ] as const) {
      const entries = await transcriptOf(reader, sessionId);
      const answers = new Map([[clientMessageId, answerOf(answer.body)]]);
      expect(checkTranscript(sessionId, entries, answers)).toEqual(new Set([clientMessageId]));
      // The dead turn started and never ended; the retry's turn answered the same message.
      const starts = entries.filter((entry) => entry.type === 'turn' && entry.phase === 'start');
      expect(starts).toHaveLength(2);
      expect(new Set(starts.map((entry) => entry.type === 'turn' && entry.messageId)).size).toBe(1);
    }
    const toolTranscript = await transcriptOf(reader, 'killed-tool');
    expect(entriesOfTurn(toolTranscript, String(holdingTool['turnId']))).toEqual([
      'message:user',
      'turn:start',
      'message:assistant',
    ]);

    expect(await b.stop('SIGTERM')).toBe(0);
    expect(await leaseRows(database)).toEqual([]);
  });

  it('SIGSTOP past its lease while holding it: the other gateway takes over and writes; the late write is refused', async () => {
    const model = 'paused';
    const mock = await createMockProvider({
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ name: 'hold', input: { gate: 'paused' } }] },
          match: { model },
        },
      ],
    });
    group.defer(() => mock.close());
    const gates = await createGates(group);
    const config = sharedGatewayConfig({
      mock,
      databaseUrl: database.url,
      model,
      leaseTtlMs: 3_000,
      plugins: [gates.plugin],
      // The lease's fencing alone (without turn claims, `cross-gateway-owner-lost` has them on).
      turnClaims: { enabled: false },
    });
    const a = await group.start({ config });
    const b = await group.start({ config });

    const first = sendMessage(a, 'paused', { text: 'start the long job', clientMessageId: 'p1' });
    const holdingTool = await a.waitForLog(holding('paused'));
    const held = await leaseOf('paused');
    expect(held).toMatchObject({ live: true });
    expect(held.remainingMs).toBeLessThanOrEqual(3_000); // storage.leaseTtlMs, renewed by A
    expect(held.holder).toContain(`:${a.child.pid}:`);

    group.pause(a); // frozen: no heartbeat renews its lease
    const second = await sendMessage(b, 'paused', {
      text: 'are you there?',
      clientMessageId: 'p2',
    });
    expect(second.body).toMatchObject({ outcome: 'reply', clientMessageId: 'p2' });
    expect(await fencingToken(database, 'paused')).toBeGreaterThan(held.token);
    const reader = transcriptReader(database);
    const written = await transcriptOf(reader, 'paused');

    await gates.open('paused'); // A's tool returns as soon as A runs again
    group.resume(a);
    const late = await first;
    expect(late.body).toMatchObject({
      outcome: 'resend',
      errorKind: 'session_takeover',
      clientMessageId: 'p1',
      turnId: holdingTool['turnId'],
    });

    const entries = await transcriptOf(reader, 'paused');
    expect(entries).toEqual(written); // nothing of the paused turn landed after B's entries
    const answers = new Map([
      ['p1', answerOf(late.body)],
      ['p2', answerOf(second.body)],
    ]);
    expect(checkTranscript('paused', entries, answers)).toEqual(new Set(['p1', 'p2']));
    // The paused turn: its message, its start, its tool call — no tool result, no end.
    expect(entriesOfTurn(entries, String(holdingTool['turnId']))).toEqual([
      'message:user',
      'turn:start',
      'message:assistant',
    ]);
    // B's turn answered the paused turn's tool call (it was left without a result) and p2.
    expect(entriesOfTurn(entries, String(second.body['turnId']))).toEqual([
      'message:tool',
      'message:user',
      'turn:start',
      'message:assistant',
      'turn:end',
    ]);

    for (const gateway of [a, b]) expect(await gateway.stop('SIGTERM')).toBe(0);
    expect(await leaseRows(database)).toEqual([]);
  });
});
