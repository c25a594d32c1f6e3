import { createMockChaos } from './mock-chaos';
import type { MockChaosFault, MockChaosOptions } from './mock-chaos-types';
import type { MockMatch } from './mock-provider-types';

/** Parsed `keel-mock-provider` command line. */
export interface MockProviderArgs {
  port: number;
  scriptPath: string | undefined;
  requireApiKey: string | undefined;
  /** The seeded random fault mode, when `--chaos-seed` is given. */
  chaos: MockChaosOptions | undefined;
  /** The demo model (`--demo`). */
  demo: boolean;
  help: boolean;
}

/** Thrown for a command line the CLI cannot run with. */
export class MockProviderArgsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MockProviderArgsError';
  }
}

export const mockProviderUsage = `Usage: keel-mock-provider [--port N] [--script file.json] [--require-api-key KEY] [--demo] [--chaos-seed SEED [chaos options]]

Starts the Keel loopback mock LLM provider on 127.0.0.1 and prints its URL and each SDK's base URL.
  --port N                 port to listen on (default 0: any free port)
  --script file.json       initial queue: a JSON array of behaviours or script entries
  --require-api-key KEY    answer other API keys with a provider-shaped 401
  --demo                   the demo model: calls current_time / roll_dice when asked and offered
  --chaos-seed SEED        seeded random faults for requests no script entry answers
  --chaos-rates F=P,...    fault probabilities, replacing the defaults (e.g. overloaded=0.1,hang=0)
  --chaos-model NAME       only this model gets faults (/regex/flags for a pattern)
  --chaos-api-key KEY      only this API key gets faults
  --chaos-burst N          consecutive overloads per overload burst (default 3)
  --chaos-retry-after S    retry-after seconds of a rate-limited fault (default 1)
  --help                   show this help`;

function parseInteger(flag: string, value: string, max: number): number {
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(number <= max)) {
    throw new MockProviderArgsError(`${flag} must be an integer from 0 to ${max}, got "${value}"`);
  }
  return number;
}

function parseRates(value: string): Partial<Record<MockChaosFault, number>> {
  const rates: Partial<Record<MockChaosFault, number>> = {};
  for (const pair of value.split(',')) {
    const match = /^\s*([a-z-]+)\s*=\s*([0-9.]+)\s*$/.exec(pair);
    if (match?.[1] === undefined || match[2] === undefined || Number.isNaN(Number(match[2]))) {
      throw new MockProviderArgsError(
        `--chaos-rates must look like fault=probability,... got "${value}"`,
      );
    }
    rates[match[1] as MockChaosFault] = Number(match[2]);
  }
  return rates;
}

/** A model name, or `/pattern/flags` for a RegExp. */
function parseModel(value: string): string | RegExp {
  const regex = /^\/(.+)\/([a-z]*)$/.exec(value);
  if (regex?.[1] === undefined) return value;
  try {
    return new RegExp(regex[1], regex[2]);
  } catch (error) {
    throw new MockProviderArgsError(`--chaos-model: ${(error as Error).message}`);
  }
}

interface ChaosFlags {
  seed?: string;
  rates?: Partial<Record<MockChaosFault, number>>;
  match: MockMatch;
  overloadBurst?: number;
  retryAfterSeconds?: number;
  given: string[];
}

function chaosOptions(flags: ChaosFlags): MockChaosOptions | undefined {
  if (flags.seed === undefined) {
    if (flags.given.length > 0) {
      throw new MockProviderArgsError(`${flags.given[0]} needs --chaos-seed`);
    }
    return undefined;
  }
  const options: MockChaosOptions = {
    seed: flags.seed,
    ...(flags.rates === undefined ? {} : { rates: flags.rates }),
    ...(Object.keys(flags.match).length === 0 ? {} : { match: flags.match }),
    ...(flags.overloadBurst === undefined ? {} : { overloadBurst: flags.overloadBurst }),
    ...(flags.retryAfterSeconds === undefined
      ? {}
      : { retryAfterSeconds: flags.retryAfterSeconds }),
  };
  try {
    createMockChaos(options);
  } catch (error) {
    throw new MockProviderArgsError((error as Error).message);
  }
  return options;
}

/** Parse `keel-mock-provider` arguments (without `node` and the script path). */
export function parseMockProviderArgs(argv: readonly string[]): MockProviderArgs {
  const args: MockProviderArgs = {
    port: 0,
    scriptPath: undefined,
    requireApiKey: undefined,
    chaos: undefined,
    demo: false,
    help: false,
  };
  const chaos: ChaosFlags = { match: {}, given: [] };
  for (let index = 0; index < argv.length; index++) {
    const raw = argv[index] ?? '';
    const equals = raw.indexOf('=');
    const flag = raw.startsWith('--') && equals > 0 ? raw.slice(0, equals) : raw;
    const inline = raw.startsWith('--') && equals > 0 ? raw.slice(equals + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[index + 1];
      if (next === undefined || next.startsWith('--')) {
        throw new MockProviderArgsError(`${flag} needs a value`);
      }
      index += 1;
      return next;
    };
    if (flag.startsWith('--chaos-') && flag !== '--chaos-seed') chaos.given.push(flag);
    switch (flag) {
      case '--port':
        args.port = parseInteger(flag, value(), 65535);
        break;
      case '--script':
        args.scriptPath = value();
        break;
      case '--require-api-key':
        args.requireApiKey = value();
        break;
      case '--demo':
        args.demo = true;
        break;
      case '--chaos-seed':
        chaos.seed = value();
        break;
      case '--chaos-rates':
        chaos.rates = parseRates(value());
        break;
      case '--chaos-model':
        chaos.match.model = parseModel(value());
        break;
      case '--chaos-api-key':
        chaos.match.apiKey = value();
        break;
      case '--chaos-burst':
        chaos.overloadBurst = parseInteger(flag, value(), 1000);
        break;
      case '--chaos-retry-after':
        chaos.retryAfterSeconds = parseInteger(flag, value(), 86400);
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      default:
        throw new MockProviderArgsError(`unknown argument "${raw}"`);
    }
  }
  args.chaos = chaosOptions(chaos);
  return args;
}
