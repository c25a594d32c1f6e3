/**
 * Two, then three, built gateway processes over one PostgreSQL database, and a client that picks a
 * gateway at random for every message: several sessions, several messages each, and batches of
 * messages sent at once within a session to different gateways. Every message gets exactly one
 * outcome at the client (`reply`, or `resend` when its turn was taken over by a gateway that wrote
 * to the session during its model call), every message is in its session's transcript in the
 * database, no message has two turn ends and every `reply` has exactly one, the turn the client
 * heard from. After graceful stops no lease is left. `KEEL_SPREAD_SEED` changes the seed.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { createMockProvider, seededRandom } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { type ClientAnswer, checkTranscript } from './support/check-transcript';
import { type GatewayProcess, sendMessage } from './support/gateway-process';
import { leaseRows, transcriptOf, transcriptReader } from './support/postgres-sessions';
import { sharedGatewayConfig } from './support/shared-gateway-config';
import { useGateways } from './support/use-gateways';

const SEED = Number(process.env['KEEL_SPREAD_SEED'] ?? 1212);
const SESSIONS = 6;
const MESSAGES = 8;

const database = useTestDatabase();
const group = useGateways();

describe.each([2, 3])('%i gateways on one database', (count) => {
  it('a client picking a gateway at random per message: one outcome each, every message kept, none answered twice', {
    timeout: 600_000,
  }, async () => {
    const model = `spread-${count}`;
    // Slow tokens, so that turns of one session on different gateways overlap.
    const mock = await createMockProvider({
      script: [{ behavior: { type: 'ok', chunkDelayMs: 15 }, match: { model }, times: 10_000 }],
    });
    group.defer(() => mock.close());
    const config = sharedGatewayConfig({ mock, databaseUrl: database.url, model });
    const gateways: GatewayProcess[] = [];
    for (let index = 0; index < count; index += 1) gateways.push(await group.start({ config }));

    const answers = new Map<string, ClientAnswer>();
    const sentTo = new Map<string, number>();
    let concurrentBatches = 0;
    const send = async (gateway: number, sessionId: string, clientMessageId: string) => {
      sentTo.set(clientMessageId, gateway);
      const { status, body } = await sendMessage(gateways[gateway]!, sessionId, {
        text: `${clientMessageId} says hello`,
        clientMessageId,
      });
      expect(status, clientMessageId).toBe(200);
      expect(body['clientMessageId']).toBe(clientMessageId);
      expect(answers.has(clientMessageId), `${clientMessageId} answered once`).toBe(false);
      answers.set(clientMessageId, body as unknown as ClientAnswer);
    };
    const client = async (session: number) => {
      const sessionId = `spread${count}-s${session}`;
      const random = seededRandom(SEED * 100 + count * 10 + session);
      for (let index = 0; index < MESSAGES; ) {
        const size = Math.min(MESSAGES - index, random() < 0.5 ? 1 : 2 + Math.floor(random() * 2));
        let gateway = Math.floor(random() * count);
        const sends: Promise<void>[] = [];
        for (let n = 0; n < size; n += 1, index += 1) {
          // Within a batch, each message goes to another gateway than the one before it.
          if (n > 0) gateway = (gateway + 1 + Math.floor(random() * (count - 1))) % count;
          sends.push(send(gateway, sessionId, `${sessionId}-m${index}`));
        }
        if (size > 1) concurrentBatches += 1;
        await Promise.all(sends);
      }
    };
    await Promise.all(Array.from({ length: SESSIONS }, (_, session) => client(session)));

    expect(answers.size).toBe(SESSIONS * MESSAGES);
    const counts = { reply: 0, resend: 0 };
    for (const [clientMessageId, answer] of answers) {
      if (answer.outcome === 'resend') {
        expect(answer.errorKind, clientMessageId).toBe('session_takeover');
      } else {
        expect(answer.outcome, clientMessageId).toBe('reply');
      }
      counts[answer.outcome as keyof typeof counts] += 1;
    }
    // Every gateway ran turns: the sessions really are spread across them.
    for (const gateway of gateways) {
      expect(gateway.logs.some((line) => line['msg'] === 'turn ended')).toBe(true);
    }

    const reader = transcriptReader(database);
    for (let session = 0; session < SESSIONS; session += 1) {
      const sessionId = `spread${count}-s${session}`;
      const entries = await transcriptOf(reader, sessionId);
      const stored = checkTranscript(sessionId, entries, answers);
      const sent = [...answers.keys()].filter((id) => id.startsWith(`${sessionId}-`));
      expect([...stored].sort(), `${sessionId}: every message in its transcript`).toEqual(
        sent.sort(),
      );
    }

    for (const gateway of gateways) expect(await gateway.stop('SIGTERM')).toBe(0);
    expect(await leaseRows(database)).toEqual([]);
    process.stdout.write(
      `spread summary (${count} gateways, seed ${SEED}): ${answers.size} messages in ${SESSIONS} sessions — ` +
        `${counts.reply} replies, ${counts.resend} resends (taken over by another gateway); ` +
        `${concurrentBatches} batches sent at once to different gateways; ` +
        `messages per gateway ${JSON.stringify(gateways.map((_, index) => [...sentTo.values()].filter((g) => g === index).length))}\n`,
    );
  });
});
