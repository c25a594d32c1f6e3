// Gateway options of issue 23 that had no test showing they take effect through the built
// gateway: `compaction.contextWindowTokens`, `compaction.reserveTokens` and
// `compaction.keepRecentTokens`. A threshold compaction runs before a model call when the context
// is over `contextWindowTokens − reserveTokens` and `keepRecentTokens` leaves something to
// summarize; it shows as one more request (the summarizer's) before the turn's own.
// Each setting is far from its default, so only the setting can explain what the test sees.
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';

const SUMMARY = ['Goal', 'Constraints', 'Decisions', 'Progress', 'Open items', 'Exact identifiers']
  .map((section) => `## ${section}\nNothing special.`)
  .join('\n\n');

let mock: MockProvider;
let gateway: GatewayProcess | undefined;

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock?.close();
});
beforeEach(() => mock.reset());
afterEach(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  gateway = undefined;
});

async function start(compaction: Record<string, unknown>): Promise<GatewayProcess> {
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'gc-a',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-compaction-a' }],
        },
      ],
      models: { primary: 'gc-a/main' },
      compaction: { model: 'gc-a/summarizer', ...compaction },
    },
  });
  return gateway;
}

/** Two turns: `first` (a long text), then a short one; the second turn's answer. */
async function twoTurns(first: string): Promise<Record<string, unknown>> {
  mock.enqueue(
    { behavior: { type: 'ok', text: SUMMARY }, match: { model: 'summarizer' }, times: 20 },
    { behavior: { type: 'ok', text: 'noted' }, match: { model: 'main' } },
    { behavior: { type: 'ok', text: 'second reply' }, match: { model: 'main' } },
  );
  const one = await sendMessage(gateway!, 'window', { text: first });
  expect(one.body).toMatchObject({ outcome: 'reply', text: 'noted' });
  return (await sendMessage(gateway!, 'window', { text: 'and now?' })).body;
}

function requestsTo(model: string) {
  return mock.requests.filter((request) => request.model === model);
}

async function compactionsOf(sessionId: string): Promise<Array<Record<string, unknown>>> {
  const response = await gateway!.fetch(`/v1/sessions/${sessionId}/events`);
  const { events } = (await response.json()) as { events: Array<Record<string, unknown>> };
  return events.filter(
    (event) =>
      event['type'] === 'compaction' &&
      (event['event'] as Record<string, unknown>)['type'] === 'compaction-end',
  );
}

/** About 1 000 estimated tokens (4 Latin characters a token). */
const THOUSAND_TOKENS = 'lorem ipsum dolor sit amet '.repeat(150);

/** The second turn was compacted first: summarizer requests, then the turn's own without the text. */
async function expectCompacted(second: Record<string, unknown>): Promise<void> {
  expect(second).toMatchObject({ outcome: 'reply', text: 'second reply' });
  expect(requestsTo('summarizer').length).toBeGreaterThan(0);
  const main = requestsTo('main');
  expect(main).toHaveLength(2);
  expect(JSON.stringify(main[1]!.messages)).not.toContain(THOUSAND_TOKENS);
  expect(await compactionsOf('window')).toMatchObject([
    { event: { trigger: 'threshold', outcome: 'compacted' } },
  ]);
}

describe('compaction.contextWindowTokens', () => {
  it('17 000 (threshold 616 with the default reserve): a 1 000-token transcript is compacted before the next turn (default 200 000: never)', {
    timeout: 120_000,
  }, async () => {
    await start({ contextWindowTokens: 17_000, keepRecentTokens: 1 });
    await expectCompacted(await twoTurns(THOUSAND_TOKENS));
  });
});

describe('compaction.reserveTokens', () => {
  it('199 400 (threshold 600 in the default window): a 1 000-token transcript is compacted before the next turn (default 16 384: never)', {
    timeout: 120_000,
  }, async () => {
    await start({ reserveTokens: 199_400, keepRecentTokens: 1 });
    await expectCompacted(await twoTurns(THOUSAND_TOKENS));
  });
});

describe('compaction.keepRecentTokens', () => {
  it('40 000: a 30 000-token transcript over the threshold is kept whole (default 20 000: its oldest turns are compacted)', {
    timeout: 180_000,
  }, async () => {
    await start({ contextWindowTokens: 17_000, keepRecentTokens: 40_000 });
    mock.enqueue({
      behavior: { type: 'ok', text: SUMMARY },
      match: { model: 'summarizer' },
      times: 20,
    });
    // Six turns of 5 000 tokens each, then a short one.
    for (let turn = 1; turn <= 6; turn += 1) {
      const answer = await sendMessage(gateway!, 'window', { text: THOUSAND_TOKENS.repeat(5) });
      expect(answer.body).toMatchObject({ outcome: 'reply' });
    }
    const last = await sendMessage(gateway!, 'window', { text: 'and now?' });
    expect(last.body).toMatchObject({ outcome: 'reply' });
    expect(requestsTo('summarizer')).toHaveLength(0);
    expect(await compactionsOf('window')).toHaveLength(0);
    const messages = requestsTo('main').at(-1)!.messages;
    expect(JSON.stringify(messages).split(THOUSAND_TOKENS.repeat(5))).toHaveLength(7);
  });
});
