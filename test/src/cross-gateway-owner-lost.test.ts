/**
 * The gateway that runs a session's turn is lost while messages for it wait at other gateways
 * (queued in the transcript for its turn):
 * - `kill -9`: its turn claim expires; another gateway takes it and answers the queued messages;
 *   the client's retry of the dead gateway's message is answered once; nothing lost or doubled.
 * - SIGSTOP past the claim's expiry: another gateway takes the claim (a larger token) and answers
 *   the queued message; on SIGCONT the frozen turn's writes are refused (it answers `resend`), and
 *   the resent message is answered once.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import type { TranscriptEntry } from '@keel/spec';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { type ClientAnswer, checkTranscript } from './support/check-transcript';
import { sendMessage } from './support/gateway-process';
import { transcriptOf, transcriptReader } from './support/postgres-sessions';
import { sharedGatewayConfig } from './support/shared-gateway-config';
import { useGateways } from './support/use-gateways';
import { waitUntil } from './support/wait-until';

const database = useTestDatabase();
const group = useGateways();
/** Three gateway processes and a database on a shared, loaded machine: generous, never raced. */
const TIMEOUT = 300_000;

const answerOf = (body: Record<string, unknown>) => body as unknown as ClientAnswer;
const modelRequests = (mock: MockProvider, model: string) =>
  mock.requests.filter(
    (request) => request.model === model && request.api === 'anthropic-messages',
  );
const storedClientIds = (entries: TranscriptEntry[]) =>
  entries.flatMap((entry) =>
    entry.type === 'message' && entry.clientMessageId !== undefined ? [entry.clientMessageId] : [],
  );

/** The session's turn claim row: who holds it and its fencing token. */
async function claimRow(sessionId: string) {
  const { rows } = await database.query(
    `SELECT owner, token::text AS token, expires_at > clock_timestamp() AS live
      FROM keel.turn_claims WHERE session_id = $1`,
    [sessionId],
  );
  const row = rows[0];
  expect(row, `${sessionId} has a turn claim`).toBeDefined();
  return { owner: String(row!['owner']), token: BigInt(String(row!['token'])), live: row!['live'] };
}

describe('the gateway that runs the turn is lost', () => {
  it(
    'kill -9 mid-turn: another gateway answers the queued messages and the retry; nothing lost or doubled',
    async () => {
      const model = 'owner-killed';
      const mock = await createMockProvider({
        script: [
          { behavior: { type: 'hang' }, match: { model } },
          { behavior: { type: 'ok', text: 'an answer' }, match: { model }, times: 100 },
        ],
      });
      group.defer(() => mock.close());
      const config = sharedGatewayConfig({
        mock,
        databaseUrl: database.url,
        model,
        leaseTtlMs: 2_000,
      });
      const [a, b, c] = await Promise.all([0, 1, 2].map(() => group.start({ config })));
      const reader = transcriptReader(database);

      const lost = sendMessage(a!, 'killed', { text: 'first', clientMessageId: 'k1' }).catch(
        (error: unknown) => error,
      );
      await mock.waitForRequests(1); // A's turn hangs in its model call, holding the claim
      expect((await claimRow('killed')).live).toBe(true);
      const queued = [
        sendMessage(b!, 'killed', { text: 'second', clientMessageId: 'k2' }),
        sendMessage(c!, 'killed', { text: 'third', clientMessageId: 'k3' }),
      ];
      await waitUntil('k2 and k3 are queued', async () => {
        const ids = storedClientIds(await transcriptOf(reader, 'killed'));
        return ids.includes('k2') && ids.includes('k3');
      });
      expect(modelRequests(mock, model)).toHaveLength(1); // queued, not answered beside A's turn
      await group.kill(a!);
      expect(await lost).toBeInstanceOf(Error); // its client lost the connection

      const [second, third] = await Promise.all(queued);
      expect(second!.body).toMatchObject({ outcome: 'reply', clientMessageId: 'k2' });
      expect(third!.body).toMatchObject({ outcome: 'reply', clientMessageId: 'k3' });
      // The client of k1 retries at another gateway: its stored message is answered there.
      const retry = await sendMessage(c!, 'killed', { text: 'first', clientMessageId: 'k1' });
      expect(retry.body).toMatchObject({ outcome: 'reply', clientMessageId: 'k1' });
      // The hung request, then one per message.
      expect(modelRequests(mock, model)).toHaveLength(4);

      const entries = await transcriptOf(reader, 'killed');
      const answers = new Map([
        ['k1', answerOf(retry.body)],
        ['k2', answerOf(second!.body)],
        ['k3', answerOf(third!.body)],
      ]);
      expect(checkTranscript('killed', entries, answers)).toEqual(new Set(['k1', 'k2', 'k3']));
    },
    TIMEOUT,
  );

  it(
    'SIGSTOP past the claim: another gateway takes it and answers; the late writes are refused',
    async () => {
      const model = 'owner-paused';
      const mock = await createMockProvider({
        script: [
          // A's call answers only after A was frozen past its claim (and the others answered).
          { behavior: { type: 'ok', text: 'late', firstChunkDelayMs: 8_000 }, match: { model } },
          { behavior: { type: 'ok', text: 'an answer' }, match: { model }, times: 100 },
        ],
      });
      group.defer(() => mock.close());
      const configOf = (gatewayId: string) =>
        sharedGatewayConfig({
          mock,
          databaseUrl: database.url,
          model,
          leaseTtlMs: 2_000,
          gatewayId,
        });
      const [a, b, c] = await Promise.all(
        ['gw-a', 'gw-b', 'gw-c'].map((id) => group.start({ config: configOf(id) })),
      );
      const reader = transcriptReader(database);

      const first = sendMessage(a!, 'paused', { text: 'first', clientMessageId: 'p1' });
      await mock.waitForRequests(1);
      const held = await claimRow('paused');
      expect(held).toMatchObject({ owner: 'gw-a', live: true }); // storage.gatewayId
      group.pause(a!);
      const second = await sendMessage(b!, 'paused', { text: 'second', clientMessageId: 'p2' });
      expect(second.body).toMatchObject({ outcome: 'reply', clientMessageId: 'p2' });
      const taken = await claimRow('paused');
      expect(taken.owner).not.toBe('gw-a');
      expect(taken.token).toBeGreaterThan(held.token);
      const written = await transcriptOf(reader, 'paused');

      group.resume(a!);
      const late = await first;
      expect(late.body).toMatchObject({
        outcome: 'resend',
        errorKind: 'session_takeover',
        clientMessageId: 'p1',
      });
      expect(await transcriptOf(reader, 'paused')).toEqual(written); // nothing of A's turn landed
      // Resent, as the client was told, at a third gateway: answered once.
      const resent = await sendMessage(c!, 'paused', { text: 'first', clientMessageId: 'p1' });
      expect(resent.body).toMatchObject({ outcome: 'reply', clientMessageId: 'p1' });
      expect(resent.body['messageId']).toBe(late.body['messageId']);
      expect(modelRequests(mock, model)).toHaveLength(3);

      const entries = await transcriptOf(reader, 'paused');
      const answers = new Map([
        ['p1', answerOf(resent.body)],
        ['p2', answerOf(second.body)],
      ]);
      expect(checkTranscript('paused', entries, answers)).toEqual(new Set(['p1', 'p2']));
      for (const gateway of [a!, b!, c!]) expect(await gateway.stop('SIGTERM')).toBe(0);
    },
    TIMEOUT,
  );
});
