// `turn.timeoutMs` (issue 23) through the built gateway: a turn whose model never answers ends
// when the whole turn's bound runs out. The model's own first-token bound is set far above both
// values, so only `turn.timeoutMs` (1 500 ms, default 600 000 ms) can end this turn; the answer's
// step is bounded at 20 s, which only the setting can meet — a bound on the step, not a timing.
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';

let mock: MockProvider;
let gateway: GatewayProcess | undefined;

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  await mock?.close();
});

/** `promise`, or a failure naming `what` once `ms` have passed (a step's timeout, not a timing). */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('turn.timeoutMs', () => {
  it('1 500: a turn whose model never answers ends with a timeout long before the default 600 000 ms', {
    timeout: 120_000,
  }, async () => {
    gateway = await startGateway({
      config: {
        sessionsDir: 'sessions',
        providers: [
          {
            id: 'tt-a',
            api: 'anthropic-messages',
            baseUrl: mock.anthropicBaseUrl,
            profiles: [{ id: 'main', apiKey: 'sk-keeltest-turn-timeout-a' }],
          },
        ],
        models: { primary: 'tt-a/main' },
        turn: { timeoutMs: 1_500, firstTokenTimeoutMs: 600_000, stallTimeoutMs: 600_000 },
      },
    });
    mock.enqueue({ type: 'hang' });
    const answer = await within(
      20_000,
      sendMessage(gateway, 'slow', { text: 'take your time' }),
      'the turn ended within 20 s',
    );
    expect(answer.body).toMatchObject({ outcome: 'error', errorKind: 'timeout' });
    expect(mock.requests).toHaveLength(1);
  });
});
