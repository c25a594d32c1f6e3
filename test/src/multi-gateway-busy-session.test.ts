/**
 * A message for a session whose turn runs on another gateway, both ways it can meet that turn:
 * - while the turn is in its model call (it let the session go for it): the other gateway writes
 *   and answers the new message; the running turn finds the session changed when it takes it
 *   back and answers `resend`; its message stays in the transcript, and resending it (same
 *   `clientMessageId`) answers it without storing it twice;
 * - while the turn holds the session's lease (running a tool): the new message's turn waits for
 *   the lease — nothing of it is written before the running turn's tool result — and is answered.
 * Never lost, never answered twice. The first case is the gateways' conduct with turn claims
 * off (`storage.turnClaims.enabled: false`); with them on (the default) the message is queued for
 * the running turn instead and nobody is told to resend (`cross-gateway-concurrent`).
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import type { TranscriptEntry } from '@keel/spec';
import { createMockProvider } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { type ClientAnswer, checkTranscript } from './support/check-transcript';
import { createGates, holding } from './support/gate-plugin';
import { sendMessage } from './support/gateway-process';
import { leaseRows, transcriptOf, transcriptReader } from './support/postgres-sessions';
import { sharedGatewayConfig } from './support/shared-gateway-config';
import { useGateways } from './support/use-gateways';

const database = useTestDatabase();
const group = useGateways();

const answerOf = (body: Record<string, unknown>) => body as unknown as ClientAnswer;
const indexOf = (entries: TranscriptEntry[], test: (entry: TranscriptEntry) => boolean) => {
  const index = entries.findIndex(test);
  expect(index).toBeGreaterThanOrEqual(0);
  return index;
};
const userMessage = (clientMessageId: string) => (entry: TranscriptEntry) =>
  entry.type === 'message' && entry.clientMessageId === clientMessageId;

describe('a message for a session whose turn runs on another gateway', () => {
  it('during that turn’s model call: answered at once; the running turn answers resend; nothing lost or doubled', async () => {
    const model = 'busy-call';
    // Gateway A's provider never answers until it is closed; gateway B's answers at once.
    const providerA = await createMockProvider({ script: [{ type: 'hang' }] });
    const providerB = await createMockProvider();
    group.defer(() => Promise.all([providerA.close(), providerB.close()]));
    const a = await group.start({
      config: sharedGatewayConfig({
        mock: providerA,
        databaseUrl: database.url,
        model,
        turn: { firstTokenTimeoutMs: 600_000 },
        turnClaims: { enabled: false },
      }),
    });
    const b = await group.start({
      config: sharedGatewayConfig({
        mock: providerB,
        databaseUrl: database.url,
        model,
        turnClaims: { enabled: false },
      }),
    });

    const first = sendMessage(a, 'busy-call', { text: 'the first words', clientMessageId: 'c1' });
    await providerA.waitForRequests(1); // A's turn wrote c1 and let the session go for the call
    const second = await sendMessage(b, 'busy-call', {
      text: 'the second words',
      clientMessageId: 'c2',
    });
    expect(second.body).toMatchObject({ outcome: 'reply', clientMessageId: 'c2' });
    // B's model saw both messages.
    expect(JSON.stringify(providerB.requests.at(-1)?.messages)).toMatch(
      /the first words.*the second words/,
    );
    await providerA.close(); // A's call ends; A takes the session back and finds B's entries
    const resend = await first;
    expect(resend.body).toMatchObject({
      outcome: 'resend',
      errorKind: 'session_takeover',
      clientMessageId: 'c1',
    });

    // The client resends c1, as it was told, to B: answered, and stored once.
    const again = await sendMessage(b, 'busy-call', {
      text: 'the first words',
      clientMessageId: 'c1',
    });
    expect(again.body).toMatchObject({ outcome: 'reply', clientMessageId: 'c1' });
    expect(again.body['messageId']).toBe(resend.body['messageId']);

    const entries = await transcriptOf(transcriptReader(database), 'busy-call');
    const answers = new Map([
      ['c1', answerOf(again.body)],
      ['c2', answerOf(second.body)],
    ]);
    expect(checkTranscript('busy-call', entries, answers)).toEqual(new Set(['c1', 'c2']));
    // A's turn wrote its message and its start, then nothing: no entry of it after B's.
    const turnA = String(resend.body['turnId']);
    const lastOfA = entries.findLastIndex((entry) => 'turnId' in entry && entry.turnId === turnA);
    expect(lastOfA).toBeLessThan(indexOf(entries, userMessage('c2')));

    for (const gateway of [a, b]) expect(await gateway.stop('SIGTERM')).toBe(0);
    expect(await leaseRows(database)).toEqual([]);
  });

  it('while that turn holds the lease (a tool runs): its turn waits for the lease, then answers; nothing lost or doubled', async () => {
    const model = 'busy-tool';
    const mock = await createMockProvider({
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ name: 'hold', input: { gate: 'busy' } }] },
          match: { model },
        },
      ],
    });
    group.defer(() => mock.close());
    const gates = await createGates(group);
    const config = {
      ...sharedGatewayConfig({ mock, databaseUrl: database.url, model, plugins: [gates.plugin] }),
      // Per-request lines (`incoming request`) are written at debug.
      logging: { level: 'debug' },
    };
    const a = await group.start({ config });
    const b = await group.start({ config });

    const first = sendMessage(a, 'busy-tool', { text: 'run the tool', clientMessageId: 'q1' });
    await a.waitForLog(holding('busy'));
    const second = sendMessage(b, 'busy-tool', { text: 'anyone there?', clientMessageId: 'q2' });
    await b.waitForLog(
      (line) =>
        line['msg'] === 'incoming request' &&
        String((line['req'] as { url?: string } | undefined)?.url).includes('busy-tool'),
    );
    await gates.open('busy');
    const [answerA, answerB] = await Promise.all([first, second]);
    expect(answerB.body).toMatchObject({ outcome: 'reply', clientMessageId: 'q2' });
    // A's turn ends `reply`, or `resend` when B wrote during A's next model call.
    expect(['reply', 'resend']).toContain(answerA.body['outcome']);

    const entries = await transcriptOf(transcriptReader(database), 'busy-tool');
    const answers = new Map([
      ['q1', answerOf(answerA.body)],
      ['q2', answerOf(answerB.body)],
    ]);
    expect(checkTranscript('busy-tool', entries, answers)).toEqual(new Set(['q1', 'q2']));
    const toolResult = indexOf(
      entries,
      (entry) =>
        entry.type === 'message' &&
        entry.role === 'tool' &&
        entry.content.some(
          (block) => block.type === 'tool_result' && block.content === 'gate busy opened',
        ),
    );
    expect(indexOf(entries, userMessage('q2'))).toBeGreaterThan(toolResult);

    for (const gateway of [a, b]) expect(await gateway.stop('SIGTERM')).toBe(0);
    expect(await leaseRows(database)).toEqual([]);
  });
});
