// `health.probeTimeoutMs` (issue 23) through the built gateway: once a model's breaker has cooled
// down, one request probes it; while that probe is in flight no other turn may use the model —
// until `probeTimeoutMs` has passed, when another probe is let through. Here the first probe
// never answers; a turn a second later (at least: the gap only grows under load) probes the
// model again with `probeTimeoutMs: 300`, and is sent to the fallback with the default (60 000).
import { setTimeout as delay } from 'node:timers/promises';
import { mockFaults } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { sendMessage } from './support/gateway-process';
import { useOptionGateways } from './support/option-gateways';

const gateways = useOptionGateways();

describe('health.probeTimeoutMs', () => {
  it('300: a probe that never answers lets another probe through a second later (default 60 000: the fallback answers)', {
    timeout: 120_000,
  }, async () => {
    const gateway = await gateways.start({
      providerId: 'hp-a',
      models: { primary: 'hp-a/flaky', fallbacks: ['hp-a/backup'] },
      config: {
        retry: { maxRetries: 0 },
        turn: { firstTokenTimeoutMs: 600_000, stallTimeoutMs: 600_000 },
        health: { minFailures: 1, cooldownMs: 100, maxCooldownMs: 100, probeTimeoutMs: 300 },
        shutdown: { graceMs: 500 },
      },
    });
    const { mock } = gateways;
    // One failure opens the breaker; the fallback answers.
    mock.enqueue(
      { behavior: mockFaults.serverError(500), match: { model: 'flaky' } },
      { behavior: { type: 'ok', text: 'from the backup' }, match: { model: 'backup' } },
    );
    expect((await sendMessage(gateway, 'one', { text: 'first' })).body).toMatchObject({
      outcome: 'reply',
      text: 'from the backup',
    });
    // Past the cooldown, a turn probes the model, which never answers.
    await delay(1_000);
    mock.enqueue({ behavior: { type: 'hang' }, match: { model: 'flaky' } });
    void sendMessage(gateway, 'two', { text: 'second' }).catch(() => {});
    await mock.waitForRequests(3);
    expect(mock.requests.map((request) => request.model)).toEqual(['flaky', 'backup', 'flaky']);
    // Past probeTimeoutMs, another turn probes it again, and it answers.
    await delay(1_000);
    mock.enqueue(
      { behavior: { type: 'ok', text: 'probed again' }, match: { model: 'flaky' } },
      { behavior: { type: 'ok', text: 'the backup again' }, match: { model: 'backup' } },
    );
    expect((await sendMessage(gateway, 'three', { text: 'third' })).body).toMatchObject({
      outcome: 'reply',
      text: 'probed again',
    });
    expect(mock.requests.map((request) => request.model)).toEqual([
      'flaky',
      'backup',
      'flaky',
      'flaky',
    ]);
  });
});
