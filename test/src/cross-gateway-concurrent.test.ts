/**
 * Several gateways, one conversation: messages of one session sent at once to three gateways
 * over one PostgreSQL are each answered once, by the gateway that holds the session's turn
 * claim, with one model request per message and no `resend`; a client's retry of a
 * `clientMessageId` at another gateway while the first still answers joins that answer (no second
 * model request).
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { type ClientAnswer, checkTranscript } from './support/check-transcript';
import { sendMessage } from './support/gateway-process';
import { transcriptOf, transcriptReader } from './support/postgres-sessions';
import { sharedGatewayConfig } from './support/shared-gateway-config';
import { useGateways } from './support/use-gateways';

const database = useTestDatabase();
const group = useGateways();
/** Three gateway processes and a database on a shared, loaded machine: generous, never raced. */
const TIMEOUT = 300_000;

const answerOf = (body: Record<string, unknown>) => body as unknown as ClientAnswer;
/** The model requests of one test (its scripted answers are scoped to its model). */
const modelRequests = (mock: MockProvider, model: string) =>
  mock.requests.filter(
    (request) => request.model === model && request.api === 'anthropic-messages',
  );

async function slowModel(model: string, delayMs: number): Promise<MockProvider> {
  const mock = await createMockProvider({
    script: [
      {
        behavior: { type: 'ok', text: 'an answer', firstChunkDelayMs: delayMs },
        match: { model },
        times: 100,
      },
    ],
  });
  group.defer(() => mock.close());
  return mock;
}

describe('one session, three gateways', () => {
  it(
    'messages sent at once to three gateways: each answered once, one model request each, no resend',
    async () => {
      const model = 'spread-at-once';
      const mock = await slowModel(model, 600);
      const config = sharedGatewayConfig({ mock, databaseUrl: database.url, model });
      const gateways = await Promise.all([0, 1, 2].map(() => group.start({ config })));

      const sent = await Promise.all(
        gateways.map((gateway, index) =>
          sendMessage(gateway, 'spread', {
            text: `message ${index}`,
            clientMessageId: `m${index}`,
          }),
        ),
      );
      for (const [index, answer] of sent.entries()) {
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ outcome: 'reply', clientMessageId: `m${index}` });
      }
      expect(modelRequests(mock, model)).toHaveLength(3);

      const entries = await transcriptOf(transcriptReader(database), 'spread');
      const answers = new Map(sent.map((answer, index) => [`m${index}`, answerOf(answer.body)]));
      expect(checkTranscript('spread', entries, answers)).toEqual(new Set(['m0', 'm1', 'm2']));
    },
    TIMEOUT,
  );

  it(
    'waiting gateways are woken by PostgreSQL notifications, not by polling',
    async () => {
      const model = 'spread-notified';
      const mock = await slowModel(model, 300);
      // Looking again only every ten minutes: only a NOTIFY answers the waiting gateways in time.
      const config = sharedGatewayConfig({
        mock,
        databaseUrl: database.url,
        model,
        turnClaims: { pollMs: 600_000 },
      });
      const gateways = await Promise.all([0, 1, 2].map(() => group.start({ config })));

      const sent = await Promise.all(
        gateways.map((gateway, index) =>
          sendMessage(gateway, 'notified', {
            text: `message ${index}`,
            clientMessageId: `n${index}`,
          }),
        ),
      );
      for (const [index, answer] of sent.entries()) {
        expect(answer.body).toMatchObject({ outcome: 'reply', clientMessageId: `n${index}` });
      }
      expect(modelRequests(mock, model)).toHaveLength(3);
    },
    TIMEOUT,
  );

  it(
    'a client retry at another gateway while the first still answers: joins it, one model request',
    async () => {
      const model = 'retry-elsewhere';
      const mock = await slowModel(model, 1_500);
      const config = sharedGatewayConfig({ mock, databaseUrl: database.url, model });
      const [a, b, c] = await Promise.all([0, 1, 2].map(() => group.start({ config })));

      const first = sendMessage(a!, 'retried', { text: 'hello', clientMessageId: 'r1' });
      await mock.waitForRequests(1); // A's turn is in its model call
      const [retryB, retryC] = await Promise.all([
        sendMessage(b!, 'retried', { text: 'hello', clientMessageId: 'r1' }),
        sendMessage(c!, 'retried', { text: 'hello', clientMessageId: 'r1' }),
      ]);
      const original = await first;
      for (const answer of [original, retryB, retryC]) {
        expect(answer.body).toMatchObject({ outcome: 'reply', clientMessageId: 'r1' });
        expect(answer.body['messageId']).toBe(original.body['messageId']);
        expect(answer.body['turnId']).toBe(original.body['turnId']);
      }
      expect(modelRequests(mock, model)).toHaveLength(1);

      const entries = await transcriptOf(transcriptReader(database), 'retried');
      expect(
        checkTranscript('retried', entries, new Map([['r1', answerOf(original.body)]])),
      ).toEqual(new Set(['r1']));
    },
    TIMEOUT,
  );
});
