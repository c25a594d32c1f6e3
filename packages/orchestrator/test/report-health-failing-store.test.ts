// Provider health is a port (PostgreSQL's is shared by every gateway): a report it fails to store
// never fails the turn (report-health.ts), and the changes a call caused before it failed still
// reach this turn's observers as its `health` events.
import type { HealthEvent, ProviderHealth } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createProviderHealth } from '../src/index';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const change: HealthEvent = {
  type: 'breaker-change',
  providerId: 'anthropic',
  model: 'primary',
  from: 'closed',
  to: 'open',
  until: 60_000,
  reason: 'overloaded',
};

describe('a health store that fails to store a report', () => {
  it('does not fail the turn, and the change it announced first is the turn’s health event', async () => {
    const inner = createProviderHealth();
    const health: ProviderHealth = Object.assign(Object.create(inner) as ProviderHealth, {
      async report(_report: unknown, options?: { onEvent?: (event: HealthEvent) => void }) {
        options?.onEvent?.(change);
        throw new Error('database down');
      },
    });
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'hi' } }],
      overrides: { health },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'reply', text: 'hi' });
    const events = harness.events.filter((event) => event.type === 'health');
    expect(events).toEqual([
      expect.objectContaining({ sessionId: 's1', turnId: outcome.turnId, event: change }),
    ]);
  });
});
