// What the orchestrator's own refusals say (create-orchestrator.ts): a caller (the gateway, an
// admin tool) shows or branches on them. Hand-made mutants: selectModel's config error with an
// empty `path` (line 164), compact's rejection with an empty message (line 207), and runCall's
// rejection after shutdown with an empty message (line 217) each fail one test here.
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the orchestrator’s refusals', () => {
  it('selectModel of an unconfigured model rejects with a config error at `models`', async () => {
    harness = await createHarness();
    const error = await harness.orchestrator
      .selectModel('s1', 'anthropic/unknown')
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'OrchestratorConfigError', path: 'models' });
    expect(String(error)).toContain('Model "anthropic/unknown" is not configured');
    expect(await harness.entries('s1')).toEqual([]);
  });

  it('compact with no compactor rejects saying so, at `compactor`', async () => {
    harness = await createHarness();
    const error = await harness.orchestrator.compact('s1').catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'OrchestratorConfigError',
      path: 'compactor',
      message: 'No compactor is configured',
    });
  });

  it('runCall once shutdown has stopped the rest rejects saying the orchestrator is shutting down', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'hang' }, match: { model: 'primary' } }],
    });
    const h = harness;
    // A call still running past the grace period: shutdown stops it, and stops taking calls.
    const running = h.orchestrator.runCall({
      request: { messages: [{ role: 'user', content: 'hi' }] },
    });
    await h.mock.waitForRequests(1);
    await h.orchestrator.shutdown({ graceMs: 0 });
    expect((await running).kind).toBe('aborted');
    const error = await h.orchestrator
      .runCall({ request: { messages: [{ role: 'user', content: 'again' }] } })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'OrchestratorError',
      message: 'The orchestrator is shutting down',
    });
    expect(h.sent()).toHaveLength(1);
  });
});
