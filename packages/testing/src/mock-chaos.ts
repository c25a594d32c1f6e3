import { createHash } from 'node:crypto';
import type {
  MockChaosFault,
  MockChaosInjection,
  MockChaosOptions,
  MockChaosStats,
} from './mock-chaos-types';
import { mockFaults } from './mock-faults';
import type { MockApi, MockBehavior, MockMatch } from './mock-provider-types';
import { matchesRequest } from './mock-queue';

/** The request fields the chaos mode decides on. */
export interface ChaosRequest {
  api: MockApi;
  model: string | undefined;
  apiKey: string | undefined;
}

/** The seeded fault source of one provider. */
export interface MockChaos {
  /** The fault for this request, or `undefined` for the normal answer (or out of scope). */
  decide(request: ChaosRequest): MockChaosInjection | undefined;
  stats(): MockChaosStats;
  /** Start the sequence again from the seed, with zero counts. */
  reset(): void;
}

/** Every fault kind, in the order the rates are laid out on [0, 1). */
const FAULTS: readonly MockChaosFault[] = [
  'reset-before-headers',
  'server-error',
  'overloaded',
  'rate-limited',
  'reset-after-chunks',
  'truncated-stream',
  'stream-error',
  'hang',
  'stall',
];

/** The rates without `rates`: a fault in about one request of four, hangs and stalls rare. */
export const DEFAULT_CHAOS_RATES: Readonly<Record<MockChaosFault, number>> = Object.freeze({
  'reset-before-headers': 0.04,
  'server-error': 0.04,
  overloaded: 0.02,
  'rate-limited': 0.03,
  'reset-after-chunks': 0.04,
  'truncated-stream': 0.02,
  'stream-error': 0.03,
  hang: 0.015,
  stall: 0.015,
});

const SERVER_STATUSES = [500, 502, 503] as const;

/** Zero counts for every fault kind. */
export function emptyChaosStats(): MockChaosStats {
  const faults = Object.fromEntries(FAULTS.map((fault) => [fault, 0]));
  return { requests: 0, passed: 0, faults: faults as Record<MockChaosFault, number> };
}

/** Uniform numbers in [0, 1) for the `index`-th eligible request: SHA-256(seed, index). */
function draws(seed: string, index: number): number[] {
  const digest = createHash('sha256').update(`keel-chaos\0${seed}\0${index}`).digest();
  const values: number[] = [];
  for (let offset = 0; offset + 4 <= digest.length; offset += 4) {
    values.push(digest.readUInt32BE(offset) / 2 ** 32);
  }
  return values;
}

/** An integer from `low` to `high` inclusive, from a uniform draw. */
function between(draw: number, low: number, high: number): number {
  return low + Math.floor(draw * (high - low + 1));
}

function pickFault(
  rates: Record<MockChaosFault, number>,
  draw: number,
): MockChaosFault | undefined {
  let edge = 0;
  for (const fault of FAULTS) {
    edge += rates[fault];
    if (draw < edge) return fault;
  }
  return undefined;
}

/** The behaviour of one fault for one api, its variant chosen by `draw` (and `second`). */
function behaviorOf(
  fault: MockChaosFault,
  api: MockApi,
  [draw, second]: readonly [number, number],
  options: { retryAfterSeconds: number },
): MockBehavior {
  switch (fault) {
    case 'reset-before-headers':
      return { type: 'reset-before-headers' };
    case 'server-error':
      return mockFaults.serverError(SERVER_STATUSES[between(draw, 0, 2)] ?? 500);
    case 'overloaded':
      return mockFaults.overloaded();
    case 'rate-limited':
      return mockFaults.rateLimited({ retryAfterSeconds: options.retryAfterSeconds });
    case 'reset-after-chunks':
      return { type: 'reset-after-chunks', chunks: between(draw, 1, 3) };
    case 'truncated-stream':
      return { type: 'truncated-stream', chunks: between(draw, 1, 3) };
    case 'stream-error': {
      const afterChunks = between(draw, 0, 2);
      if (api !== 'anthropic-messages') {
        const message = 'The server had an error while processing your request. Sorry about that!';
        return { type: 'stream-error', afterChunks, errorType: 'server_error', message };
      }
      return second < 0.5
        ? {
            type: 'stream-error',
            afterChunks,
            errorType: 'overloaded_error',
            message: 'Overloaded',
          }
        : {
            type: 'stream-error',
            afterChunks,
            errorType: 'api_error',
            message: 'Internal server error',
          };
    }
    case 'hang':
      return { type: 'hang' };
    case 'stall':
      return { type: 'stall', afterChunks: between(draw, 0, 2) };
    default: {
      const unknown: never = fault;
      throw new Error(`Unknown chaos fault: ${String(unknown)}`);
    }
  }
}

function checkedRates(rates: MockChaosOptions['rates']): Record<MockChaosFault, number> {
  if (rates === undefined) return { ...DEFAULT_CHAOS_RATES };
  const checked = emptyChaosStats().faults;
  let total = 0;
  for (const [fault, rate] of Object.entries(rates)) {
    if (!(FAULTS as readonly string[]).includes(fault)) {
      throw new TypeError(`chaos.rates: unknown fault "${fault}" (one of ${FAULTS.join(', ')})`);
    }
    if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) {
      throw new RangeError(`chaos.rates.${fault} must be a number from 0 to 1, got ${rate}`);
    }
    checked[fault as MockChaosFault] = rate;
    total += rate;
  }
  if (total > 1 + 1e-9) throw new RangeError(`chaos.rates must sum to at most 1, got ${total}`);
  return checked;
}

function checkedInteger(value: number | undefined, name: string, min: number, fallback: number) {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`chaos.${name} must be an integer >= ${min}, got ${value}`);
  }
  return value;
}

/** Validates the options and returns the provider's chaos source. */
export function createMockChaos(options: MockChaosOptions): MockChaos {
  const { seed } = options;
  const validSeed =
    (typeof seed === 'number' && Number.isFinite(seed)) ||
    (typeof seed === 'string' && seed !== '');
  if (!validSeed) throw new TypeError('chaos.seed must be a finite number or a non-empty string');
  const rates = checkedRates(options.rates);
  const overloadBurst = checkedInteger(options.overloadBurst, 'overloadBurst', 1, 3);
  const retryAfterSeconds = checkedInteger(options.retryAfterSeconds, 'retryAfterSeconds', 0, 1);
  const scope: readonly MockMatch[] | undefined =
    options.match === undefined || Array.isArray(options.match)
      ? (options.match as readonly MockMatch[] | undefined)
      : [options.match as MockMatch];
  let stats = emptyChaosStats();
  let burstLeft = 0;

  return {
    decide(request) {
      if (scope !== undefined && !scope.some((match) => matchesRequest(match, request))) {
        return undefined;
      }
      const index = stats.requests;
      stats.requests += 1;
      const [faultDraw = 0, variantDraw = 0, secondDraw = 0] = draws(String(seed), index);
      let fault: MockChaosFault | undefined;
      if (burstLeft > 0) {
        fault = 'overloaded';
        burstLeft -= 1;
      } else {
        fault = pickFault(rates, faultDraw);
        if (fault === 'overloaded') burstLeft = overloadBurst - 1;
      }
      if (fault === undefined) {
        stats.passed += 1;
        return undefined;
      }
      stats.faults[fault] += 1;
      const behavior = behaviorOf(fault, request.api, [variantDraw, secondDraw], {
        retryAfterSeconds,
      });
      return { fault, index, behavior };
    },
    stats() {
      return { ...stats, faults: { ...stats.faults } };
    },
    reset() {
      stats = emptyChaosStats();
      burstLeft = 0;
    },
  };
}
