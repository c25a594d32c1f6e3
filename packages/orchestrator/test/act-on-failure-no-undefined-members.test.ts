// What a failed attempt tells observers and provider health has no member set to undefined: a
// field the failure did not carry is absent (`'status' in event` is false), as a subscriber or a
// health store that copies keys sees it.
import type { HealthReport } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';
import { recordingHealth } from './recording-health';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };

describe('a failed attempt without a status or a retry-after (a connection reset)', () => {
  it('its attempt-error event and its health report carry neither key', async () => {
    const reports: HealthReport[] = [];
    harness = await createHarness({
      script: [{ behavior: { type: 'reset-before-headers' }, match: primary }],
      overrides: { health: recordingHealth(reports) },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    const errors = harness.events.filter((event) => event.type === 'attempt-error');
    expect(errors).toMatchObject([{ kind: 'connection' }]);
    expect(Object.keys(errors[0] ?? {})).not.toContain('status');
    expect(Object.keys(errors[0] ?? {})).not.toContain('retryAfterMs');
    const failures = reports.filter((report) => report.type === 'failure');
    expect(failures).toMatchObject([{ kind: 'connection' }]);
    expect(Object.keys(failures[0] ?? {})).not.toContain('retryAfterMs');
  });
});

describe('a failure with no message (a model port throwing a plain object)', () => {
  it('its attempt-error event carries no message key', async () => {
    harness = await createHarness({
      beforeStreamEnds: () => {
        throw { code: 'E_PLAIN' };
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'unknown' });
    const errors = harness.events.filter((event) => event.type === 'attempt-error');
    expect(errors).toMatchObject([{ kind: 'unknown' }]);
    expect(Object.keys(errors[0] ?? {})).not.toContain('message');
  });
});

describe('an overloaded model given up on without a retry-after', () => {
  it('its give-up report carries no retryAfterMs key', async () => {
    const reports: HealthReport[] = [];
    harness = await createHarness({
      script: [{ behavior: mockFaults.overloaded(), match: primary, times: 2 }],
      overrides: { health: recordingHealth(reports) },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(harness.decisions()).toEqual(['rotate_profile', 'fallback_model']);
    const giveUps = reports.filter((report) => report.type === 'overloaded');
    expect(giveUps).toMatchObject([{ target: { profileId: 'k2', model: 'primary' } }]);
    expect(Object.keys(giveUps[0] ?? {})).not.toContain('retryAfterMs');
  });
});
