/**
 * The sixteen fault scenarios of issue 18, written from its list (ids follow the public
 * failoverbench catalogue, S01–S16): the fault each plays on the mock provider, the config it
 * needs and the conduct it checks. S15 (a primary down, then healthy) is a sequence of its own.
 */
import { type MockScriptEntry, mockFaults } from '@keel/testing';
import {
  aliveAfter,
  decisionsTruthful,
  gapAtLeast,
  namesModel,
  noPrefill,
  noSameSizeResend,
  requests,
  usagePresent,
} from './failover-checks';
import { primaryDownThenHealthy } from './failover-flap';
import type { FailoverScenario } from './failover-scenario';
import { singleMessage } from './failover-single';

const ALWAYS = 1e9;
const always = (model: string, behavior: MockScriptEntry['behavior']): MockScriptEntry => ({
  behavior,
  match: { model },
  times: ALWAYS,
});
const once = (model: string, behavior: MockScriptEntry['behavior']): MockScriptEntry => ({
  behavior,
  match: { model },
  times: 1,
});
/** Text chunks of the canonical answer before a cut or a stall (of about 50). */
const CUT_AFTER = 20;
const limits = { full: 60_000, smoke: 20_000 };
/** Silent routes wait for the gateway's own timeouts (30 s by default): room for two, and more. */
const silentLimits = { full: 200_000, smoke: 20_000 };
/** A smoke run scales the gateway's silence timeouts down so it takes seconds. */
const smokeTimeouts = (smoke: boolean): Record<string, number> =>
  smoke ? { firstTokenTimeoutMs: 1_000, stallTimeoutMs: 1_000 } : {};

export const FAILOVER_SCENARIOS: FailoverScenario[] = [
  singleMessage({
    id: 'S01',
    title: '429 with retry-after',
    faults: (models) => [once(models.primary, mockFaults.rateLimited({ retryAfterSeconds: 2 }))],
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => {
      const retried = observation.primary.length === 2;
      return retried
        ? [
            gapAtLeast(observation, 1_800, 'retry-after not honoured'),
            requests(observation, 'fallback', [0, 0], {
              required: false,
              why: 'fell over after the retry',
            }),
          ]
        : [
            requests(observation, 'primary', [1, 1], { required: true, why: 'hammering' }),
            requests(observation, 'fallback', [1, 1], {
              required: false,
              why: 'no fallback answer',
            }),
          ];
    },
  }),
  singleMessage({
    id: 'S02',
    title: '429 without retry-after, persistent',
    faults: (models) => [always(models.primary, mockFaults.rateLimited())],
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => [
      requests(observation, 'primary', [1, 2], { required: true, why: 'hammering a rate limit' }),
      requests(observation, 'fallback', [1, 1], { required: false, why: 'fallback' }),
    ],
  }),
  singleMessage({
    id: 'S03',
    title: '500 once, then healthy',
    faults: (models) => [once(models.primary, mockFaults.serverError(500))],
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => [
      requests(observation, 'primary', [2, 2], {
        required: false,
        why: 'a transient 500 is retried once in place',
      }),
      requests(observation, 'fallback', [0, 1], { required: true, why: 'fallback' }),
    ],
  }),
  singleMessage({
    id: 'S04',
    title: '503 persistent (overloaded)',
    faults: (models) => [always(models.primary, mockFaults.overloaded())],
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => [
      requests(observation, 'primary', [1, 2], {
        required: true,
        why: 'hammering an overloaded model',
      }),
      requests(observation, 'fallback', [1, 1], { required: true, why: 'fallback' }),
    ],
  }),
  singleMessage({
    id: 'S05',
    title: 'reset before headers, once',
    faults: (models) => [once(models.primary, { type: 'reset-before-headers' })],
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => [
      requests(observation, 'primary', [1, 2], { required: true, why: 'hammering' }),
      requests(observation, 'fallback', [0, 1], { required: true, why: 'fallback' }),
    ],
  }),
  singleMessage({
    id: 'S06',
    title: 'no response at all (hang)',
    faults: (models) => [always(models.primary, { type: 'hang' })],
    turn: smokeTimeouts,
    limitMs: silentLimits,
    checks: (observation) => [
      requests(observation, 'primary', [1, 1], {
        required: false,
        why: 'the silent primary was retried',
      }),
      requests(observation, 'fallback', [1, 1], { required: true, why: 'fallback' }),
    ],
  }),
  singleMessage({
    id: 'S07',
    title: '20 s first token',
    faults: (models, smoke) => [
      always(models.primary, { type: 'ok', firstChunkDelayMs: smoke ? 3_000 : 20_000 }),
    ],
    settings: (models, smoke) => ({
      [models.primaryRef]: { firstTokenTimeoutMs: smoke ? 500 : 5_000 },
    }),
    withoutSettings: (smoke) => ({
      turn: { firstTokenTimeoutMs: smoke ? 500 : 5_000 },
      note: 'first-token timeout scaled with turn.firstTokenTimeoutMs (models.settings not in this build)',
    }),
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => [
      requests(observation, 'primary', [1, 1], {
        required: false,
        why: 'the slow primary was retried',
      }),
      requests(observation, 'fallback', [1, 1], {
        required: false,
        why: 'no fall-over at the first-token limit',
      }),
    ],
  }),
  singleMessage({
    id: 'S08',
    midStream: true,
    title: 'stream cut mid-answer',
    faults: (models) => [always(models.primary, { type: 'reset-after-chunks', chunks: CUT_AFTER })],
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => [
      requests(observation, 'primary', [1, 2], { required: true, why: 'hammering' }),
      requests(observation, 'fallback', [1, 1], { required: true, why: 'fallback' }),
    ],
  }),
  singleMessage({
    id: 'S09',
    midStream: true,
    title: 'stalled stream',
    faults: (models) => [always(models.primary, { type: 'stall', afterChunks: CUT_AFTER })],
    turn: smokeTimeouts,
    limitMs: silentLimits,
    aliveAfter: true,
    checks: (observation) => [
      requests(observation, 'primary', [1, 1], {
        required: false,
        why: 'the stalled primary was retried',
      }),
      aliveAfter(observation),
    ],
  }),
  singleMessage({
    id: 'S10',
    midStream: true,
    title: 'malformed chunk',
    faults: (models) => [always(models.primary, { type: 'ok', malformedAfterChunks: 9 })],
    turn: smokeTimeouts,
    limitMs: limits,
    aliveAfter: true,
    checks: (observation) => [
      requests(observation, 'primary', [1, 2], { required: true, why: 'hammering' }),
      requests(observation, 'fallback', [0, 1], { required: true, why: 'fallback' }),
      aliveAfter(observation),
    ],
  }),
  singleMessage({
    id: 'S11',
    title: 'no [DONE] (no terminal event)',
    faults: (models) => [always(models.primary, { type: 'ok', omitTerminalEvent: true })],
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => [
      requests(observation, 'primary', [1, 1], {
        required: false,
        why: 'a complete answer was treated as cut',
      }),
      requests(observation, 'fallback', [0, 0], {
        required: false,
        why: 'a complete answer was thrown away',
      }),
      usagePresent(observation, false),
    ],
  }),
  singleMessage({
    id: 'S12',
    title: 'context length exceeded',
    // About 40 000 tokens: over the primary's declared 32 000, well under the fallback's window.
    text: `Summarize this log. ${'The gateway retried the request and logged the result. '.repeat(2_900)}`,
    faults: (models) => [
      always(models.primary, mockFaults.promptTooLong({ tokens: 40_000, maximum: 32_000 })),
    ],
    settings: (models) => ({
      [models.primaryRef]: { contextWindowTokens: 32_000 },
      [models.fallbackRef]: { contextWindowTokens: 200_000 },
    }),
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => [
      noSameSizeResend(observation),
      requests(observation, 'primary', [0, 2], { required: true, why: 'hammering' }),
      requests(observation, 'fallback', [1, 1], {
        required: false,
        why: 'no move to the larger window',
      }),
    ],
  }),
  singleMessage({
    id: 'S13',
    title: 'content-filter 400',
    ideal: 'error',
    faults: (models) => [always(models.primary, mockFaults.contentFiltered())],
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => [
      requests(observation, 'primary', [1, 1], { required: true, why: 'a blind retry of a 400' }),
    ],
  }),
  singleMessage({
    id: 'S14',
    midStream: true,
    title: 'fallback rejects prefill',
    faults: (models) => [
      always(models.primary, { type: 'reset-after-chunks', chunks: CUT_AFTER }),
      {
        behavior: mockFaults.prefillRejected(),
        match: { model: models.fallback, prefill: true },
        times: ALWAYS,
      },
    ],
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation) => [
      noPrefill(observation),
      requests(observation, 'primary', [1, 2], { required: true, why: 'hammering' }),
      requests(observation, 'fallback', [1, 1], { required: true, why: 'fallback' }),
    ],
  }),
  primaryDownThenHealthy,
  singleMessage({
    id: 'S16',
    title: 'fail-over accounting',
    faults: (models) => [always(models.primary, mockFaults.overloaded())],
    turn: smokeTimeouts,
    limitMs: limits,
    checks: (observation, models) => [
      namesModel(observation, models.fallbackRef),
      decisionsTruthful(observation.attempts),
      usagePresent(observation, false),
      requests(observation, 'fallback', [1, 1], { required: true, why: 'fallback' }),
    ],
  }),
];
