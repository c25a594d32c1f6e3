import { parseArgs } from 'node:util';

export interface CliArguments {
  config: string | undefined;
  host: string | undefined;
  port: number | undefined;
  /** `json` or `pretty`; unset: pretty on a terminal, JSON otherwise. */
  logFormat: LogFormat | undefined;
  help: boolean;
}

export type LogFormat = 'json' | 'pretty';

export const USAGE = `Usage: keel-gateway [--config keel.config.json] [--host H] [--port N] [--log-format F]

Options:
  -c, --config <file>  the configuration (default: $KEEL_CONFIG, else built from the environment)
      --host <host>    bind address, over server.host (default 127.0.0.1)
  -p, --port <port>    port, over server.port (default 7420; 0 picks a free one)
      --log-format <f> json (one JSON record a line) or pretty (readable lines); default
                       pretty on a terminal, json otherwise
  -h, --help           print this and exit

Without a configuration file, a key in ANTHROPIC_API_KEY or OPENAI_API_KEY selects that
provider (model from KEEL_MODEL); with neither, the embedded demo model answers offline.
KEEL_TOKEN, KEEL_HOST, KEEL_PORT and KEEL_SESSIONS_DIR set the rest. Exit codes: 0 stopped
cleanly, 1 invalid configuration or failed start, 2 bad command line.`;

/** Reads the command line; throws a `TypeError` with a clear message for anything else. */
export function parseCliArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CliArguments {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      config: { type: 'string', short: 'c' },
      host: { type: 'string' },
      port: { type: 'string', short: 'p' },
      'log-format': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  let port: number | undefined;
  if (values.port !== undefined) {
    port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN;
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new TypeError(`--port must be a whole number from 0 to 65535, not "${values.port}"`);
    }
  }
  const logFormat = values['log-format'];
  if (logFormat !== undefined && logFormat !== 'json' && logFormat !== 'pretty') {
    throw new TypeError(`--log-format must be json or pretty, not "${logFormat}"`);
  }
  return {
    config: values.config ?? env['KEEL_CONFIG'],
    host: values.host,
    port,
    logFormat,
    help: values.help === true,
  };
}
