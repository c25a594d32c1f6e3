// `turn.timeoutMs` (issue 23) through the built gateway: a turn whose model never answers ends
// when the whole turn's bound runs out. The model's own first-token bound is set far above both
// values, so only `turn.timeoutMs` (1 500 ms, default 600 000 ms) can end this turn; the answer's
// step is bounded at 20 s, which only the setting can meet — a bound on the step, not a timing.
import { describe, expect, it } from 'vitest';
import { sendMessage } from './support/gateway-process';
import { useOptionGateways } from './support/option-gateways';
import { within } from './support/within';

const gateways = useOptionGateways();

describe('turn.timeoutMs', () => {
  it('1 500: a turn whose model never answers ends with a timeout long before the default 600 000 ms', {
    timeout: 120_000,
  }, async () => {
    const gateway = await gateways.start({
      providerId: 'tt-a',
      models: { primary: 'tt-a/main' },
      config: {
        turn: { timeoutMs: 1_500, firstTokenTimeoutMs: 600_000, stallTimeoutMs: 600_000 },
      },
    });
    const { mock } = gateways;
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
