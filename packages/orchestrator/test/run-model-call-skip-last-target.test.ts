// run-model-call.ts: a skipped attempt with nothing left to move to carries no `decision` member
// at all (absent, not `undefined`). It stays visible in the outcome when the model-switch limit
// ends the turn straight after that skip: a `selectModel` landing during the last target's health
// check.
import type { ProviderHealth } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createProviderHealth } from '../src/index';
import { undefinedPaths } from './deep-undefined-members';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the last target skipped, then the switch limit', () => {
  it('the skipped attempt has no decision member, and the outcome no undefined member', async () => {
    const inner = createProviderHealth();
    const health: ProviderHealth = Object.assign(Object.create(inner) as ProviderHealth, {
      async permit() {
        await harness!.orchestrator.selectModel('s1', 'backup/other');
        return { allowed: false, reason: 'breaker-open', waitMs: 60_000 } as const;
      },
    });
    harness = await createHarness({
      providers: [
        { id: 'anthropic', profiles: [{ id: 'k1' }] },
        { id: 'backup', profiles: [{ id: 'b1' }] },
      ],
      models: { primary: 'anthropic/primary', settings: { 'backup/other': {} } },
      overrides: { health, maxModelSwitches: 0 },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(outcome.kind).toBe('error');
    expect(harness.sent()).toEqual([]);
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.attempts[0]?.outcome).toBe('skipped');
    expect('decision' in outcome.attempts[0]!).toBe(false);
    expect(undefinedPaths(outcome)).toEqual([]);
    expect(harness.decisions()).toEqual(['final']);
  });
});
