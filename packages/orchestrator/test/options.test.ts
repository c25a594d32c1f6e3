import type { ErrorKind } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const serverErrors = (times: number) => ({
  behavior: { type: 'http-error' as const, status: 500 },
  match: primary,
  times,
});
const body = (h: Harness) =>
  h.mock.requests.find((request) => request.api === 'anthropic-messages')!.body as Record<
    string,
    unknown
  >;

describe('options that shape the waits', () => {
  it('retry.baseDelayMs sets the backoff (random 0.5 → ¾ of it)', async () => {
    harness = await createHarness({
      overrides: { retry: { baseDelayMs: 2_000 } },
      script: [serverErrors(1)],
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(harness.clock.sleeps).toEqual([1_500]);
  });

  it('retry.maxDelayMs caps the exponential backoff of later retries', async () => {
    harness = await createHarness({
      overrides: { retry: { maxRetries: 3, baseDelayMs: 1_000, maxDelayMs: 1_600 } },
      script: [serverErrors(3)],
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    // 1000, 2000 → 1600, 4000 → 1600; each ¾ with random 0.5.
    expect(harness.clock.sleeps).toEqual([750, 1_200, 1_200]);
  });

  it('random is the jitter: 0 waits half the step, 0.999 almost all of it', async () => {
    harness = await createHarness({ overrides: { random: () => 0 }, script: [serverErrors(1)] });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(harness.clock.sleeps).toEqual([250]);
    await harness.close();
    harness = await createHarness({
      overrides: { random: () => 0.999 },
      script: [serverErrors(1)],
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(harness.clock.sleeps).toEqual([500]);
  });
});

describe('options that shape the request and the outcome', () => {
  it('maxTokens is every call’s max_tokens', async () => {
    harness = await createHarness({ overrides: { maxTokens: 123 } });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(body(harness)['max_tokens']).toBe(123);
  });

  it('system is every call’s system prompt', async () => {
    harness = await createHarness({ overrides: { system: 'Be brief.' } });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(body(harness)['system']).toBe('Be brief.');
  });

  it('copy replaces the text of an ending', async () => {
    harness = await createHarness({
      overrides: { maxSteps: 1, copy: { stepCapReached: 'Too many steps, sorry.' } },
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          return { content: 'found' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', text: 'Too many steps, sorry.' });
  });

  it('classify decides the kind: a 500 called invalid_request ends the turn after 1 request', async () => {
    const kinds: ErrorKind[] = [];
    harness = await createHarness({
      overrides: {
        classify: () => {
          kinds.push('invalid_request');
          return { kind: 'invalid_request', retryable: false };
        },
      },
      script: [serverErrors(1)],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'invalid_request' });
    expect(harness.sent()).toHaveLength(1);
    expect(kinds).toEqual(['invalid_request']);
  });

  it('createId names the turn, the message and the entries', async () => {
    let next = 0;
    harness = await createHarness({
      overrides: {
        createId: () => {
          next += 1;
          return `id-${next}`;
        },
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.turnId).toMatch(/^id-\d+$/);
    expect(outcome.messageId).toMatch(/^id-\d+$/);
    const entries = await harness.entries('s1');
    expect(entries.every((entry) => /^id-\d+$/.test(entry.id))).toBe(true);
  });
});
