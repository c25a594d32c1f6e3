/** Parsed `keel-mock-provider` command line. */
export interface MockProviderArgs {
  port: number;
  scriptPath: string | undefined;
  requireApiKey: string | undefined;
  help: boolean;
}

/** Thrown for a command line the CLI cannot run with. */
export class MockProviderArgsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MockProviderArgsError';
  }
}

export const mockProviderUsage = `Usage: keel-mock-provider [--port N] [--script file.json] [--require-api-key KEY]

Starts the Keel loopback mock LLM provider on 127.0.0.1 and prints its URL.
  --port N               port to listen on (default 0: any free port)
  --script file.json     initial queue: a JSON array of behaviours or script entries
  --require-api-key KEY  answer other API keys with a provider-shaped 401
  --help                 show this help`;

function parsePort(value: string): number {
  if (!/^\d+$/.test(value)) {
    throw new MockProviderArgsError(`--port must be an integer from 0 to 65535, got "${value}"`);
  }
  const port = Number(value);
  if (port > 65535) {
    throw new MockProviderArgsError(`--port must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}

/** Parse `keel-mock-provider` arguments (without `node` and the script path). */
export function parseMockProviderArgs(argv: readonly string[]): MockProviderArgs {
  const args: MockProviderArgs = {
    port: 0,
    scriptPath: undefined,
    requireApiKey: undefined,
    help: false,
  };
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
    switch (flag) {
      case '--port':
        args.port = parsePort(value());
        break;
      case '--script':
        args.scriptPath = value();
        break;
      case '--require-api-key':
        args.requireApiKey = value();
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      default:
        throw new MockProviderArgsError(`unknown argument "${raw}"`);
    }
  }
  return args;
}
