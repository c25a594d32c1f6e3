/**
 * The conformance checks of when a breaker opens: on evidence in a sliding window across sessions,
 * or on a long `retry-after`; never on one request, never on what is not the model's fault.
 */
import { expect, it } from 'vitest';
import { a1, a2, go, type HealthSetup, haiku } from './health-conformance-support';

/** Registers the opening checks (inside the kit's `describe`). */
export function openingChecks(setup: HealthSetup): void {
  it('3 failures among 10 requests do not open the breaker; 2 of 2 do not', async () => {
    const { health, outcomes } = await setup();
    await outcomes('SSFSSFSSFS');
    expect(await health.permit(a1)).toEqual(go);
    const other = await setup();
    await other.outcomes('FF');
    expect(await other.health.permit(a1)).toEqual(go);
    expect(other.events).toEqual([]);
  });

  it('3 failures of 4 requests, across sessions and profiles, open it for the model, not others', async () => {
    const { health, outcomes, events, clock } = await setup();
    await outcomes('SFFF');
    expect(await health.permit(a2)).toEqual({
      allowed: false,
      reason: 'breaker-open',
      waitMs: 10_000,
    });
    expect(await health.permit(haiku)).toEqual(go);
    expect(events).toEqual([
      {
        type: 'breaker-change',
        providerId: 'anthropic',
        model: 'sonnet',
        from: 'closed',
        to: 'open',
        until: clock.now() + 10_000,
        reason: 'server_error',
      },
    ]);
  });

  it('old failures slide out of the 30 s window', async () => {
    const kept = await setup();
    await kept.outcomes('FF');
    kept.clock.advance(20_000);
    await kept.outcomes('F');
    expect(await kept.health.permit(a1)).toMatchObject({
      allowed: false,
      reason: 'breaker-open',
    });
    const slid = await setup();
    await slid.outcomes('FF');
    slid.clock.advance(30_000);
    await slid.outcomes('F');
    expect(await slid.health.permit(a1)).toEqual(go);
  });

  it('windowMs, minFailures and failureRatio take effect', async () => {
    const short = await setup({ windowMs: 1_000 });
    await short.outcomes('FF');
    short.clock.advance(1_000);
    await short.outcomes('F');
    expect(await short.health.permit(a1)).toEqual(go);
    const strict = await setup({ minFailures: 2, failureRatio: 1 });
    await strict.outcomes('SFF');
    expect(await strict.health.permit(a1)).toEqual(go);
    await strict.outcomes('FF', haiku);
    expect(await strict.health.permit(haiku)).toMatchObject({ allowed: false });
  });

  it('kinds that are not the model’s (rate limits, auth, the caller) never open it', async () => {
    const { health } = await setup();
    for (const kind of ['rate_limit', 'auth', 'invalid_request', 'caller_abort'] as const) {
      for (let index = 0; index < 3; index += 1) {
        await health.report({ type: 'failure', target: a1, kind, probe: false });
      }
    }
    expect(await health.permit(a2)).toEqual(go);
  });

  it('a retry-after longer than 10 s opens it at once, for that long; 10 s does not', async () => {
    const { health } = await setup();
    await health.report({
      type: 'failure',
      target: a1,
      kind: 'overloaded',
      probe: false,
      retryAfterMs: 10_000,
    });
    expect(await health.permit(a1)).toEqual(go);
    await health.report({
      type: 'failure',
      target: a1,
      kind: 'overloaded',
      probe: false,
      retryAfterMs: 15_000,
    });
    expect(await health.permit(a2)).toEqual({
      allowed: false,
      reason: 'breaker-open',
      waitMs: 15_000,
    });
  });

  it('a retry-after of 120 s opens it for 30 s only; so does a turn giving up with it', async () => {
    const { health, clock } = await setup();
    await health.report({
      type: 'failure',
      target: a1,
      kind: 'server_error',
      probe: false,
      retryAfterMs: 120_000,
    });
    expect(await health.permit(a1)).toMatchObject({ waitMs: 30_000 });
    clock.advance(30_000);
    expect(await health.permit(a1)).toEqual({ allowed: true, probe: true });
    const gaveUp = await setup();
    await gaveUp.health.report({ type: 'overloaded', target: a1, retryAfterMs: 120_000 });
    expect(await gaveUp.health.permit(a1)).toMatchObject({ waitMs: 30_000 });
  });

  it('a turn giving up for overload opens nothing by itself, nor with a short retry-after', async () => {
    const { health, events } = await setup();
    await health.report({ type: 'overloaded', target: a1 });
    await health.report({ type: 'overloaded', target: a1, retryAfterMs: 10_000 });
    expect(await health.permit(a1)).toEqual(go);
    expect(events).toEqual([]);
  });

  it('longRetryAfterMs takes effect; the cooldown is kept when it is longer', async () => {
    const { health } = await setup({ longRetryAfterMs: 2_000 });
    await health.report({
      type: 'failure',
      target: a1,
      kind: 'overloaded',
      probe: false,
      retryAfterMs: 3_000,
    });
    expect(await health.permit(a1)).toMatchObject({ reason: 'breaker-open', waitMs: 10_000 });
  });
}
