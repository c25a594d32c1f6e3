// `health.windowMs` (issue 23) through the built gateway: failures count toward opening a
// model's breaker only while they are inside the window. Two failures of the primary a second
// apart (at least: the gap only grows under load) open its breaker with the default window
// (30 000 ms) and `minFailures: 2`; with `windowMs: 300` the first has left the window when
// the second comes, and the breaker stays closed.
import { setTimeout as delay } from 'node:timers/promises';
import { mockFaults } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { type GatewayProcess, sendMessage } from './support/gateway-process';
import { useOptionGateways } from './support/option-gateways';

const gateways = useOptionGateways();
let gateway: GatewayProcess | undefined;

interface Breaker {
  providerId: string;
  model: string;
  state: string;
}

async function breakerOf(model: string): Promise<Breaker | undefined> {
  const { breakers } = (await (await gateway!.fetch('/v1/providers/health')).json()) as {
    breakers: Breaker[];
  };
  return breakers.find((entry) => entry.providerId === 'hw-a' && entry.model === model);
}

describe('health.windowMs', () => {
  it('300: two failures a second apart leave the breaker closed (default 30 000: open)', {
    timeout: 120_000,
  }, async () => {
    gateway = await gateways.start({
      providerId: 'hw-a',
      models: { primary: 'hw-a/fails', fallbacks: ['hw-a/backup'] },
      config: { retry: { maxRetries: 0 }, health: { minFailures: 2, windowMs: 300 } },
    });
    const { mock } = gateways;
    for (const text of ['first', 'second']) {
      if (text === 'second') await delay(1_000);
      mock.enqueue(
        { behavior: mockFaults.serverError(500), match: { model: 'fails' } },
        { behavior: { type: 'ok', text: `${text} from the backup` }, match: { model: 'backup' } },
      );
      const answer = await sendMessage(gateway, 'window', { text });
      expect(answer.body).toMatchObject({ outcome: 'reply', text: `${text} from the backup` });
    }
    expect(mock.requests.map((request) => request.model)).toEqual([
      'fails',
      'backup',
      'fails',
      'backup',
    ]);
    expect((await breakerOf('fails'))?.state ?? 'closed').toBe('closed');
  });
});
