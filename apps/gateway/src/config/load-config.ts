import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError, type ConfigProblem } from './config-error';
import { configSchema, type KeelConfig, type KeelConfigInput } from './config-schema';
import { describeJsonError } from './locate-json-error';
import { substituteEnv } from './substitute-env';

export interface LoadConfigOptions {
  /** A `keel.config.json`; without one the configuration comes from the environment. */
  path?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Where relative paths of a configuration without a file resolve; default the process's cwd. */
  cwd?: string;
}

/** Where a configuration came from. */
export type ConfigSource = 'file' | 'anthropic-key' | 'openai-key' | 'demo';

export interface LoadedConfig {
  config: KeelConfig;
  source: ConfigSource;
  /** Relative paths in the configuration (sessions, plugins) resolve from here. */
  baseDir: string;
}

/**
 * Reads, substitutes (`${ENV_VAR}`) and validates a configuration. Without a file: a key in
 * `ANTHROPIC_API_KEY` or `OPENAI_API_KEY` selects that provider (model from `KEEL_MODEL`),
 * otherwise the embedded demo model serves offline. Throws `ConfigError` naming every problem.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  if (options.path === undefined) {
    if (env['KEEL_TOKEN'] === '') {
      throw new ConfigError({
        source: 'environment',
        problems: [
          {
            path: 'KEEL_TOKEN',
            message: 'is set but empty: unset it to run without a token (loopback only)',
          },
        ],
      });
    }
    const { input, source } = defaultConfig(env);
    const baseDir = options.cwd ?? process.cwd();
    return { config: withResolvedPaths(validate(input, 'defaults'), baseDir), source, baseDir };
  }
  const path = resolve(options.cwd ?? process.cwd(), options.path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new ConfigError({
      source: path,
      problems: [{ path: '', message: `cannot read the file (${code})` }],
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError({
      source: path,
      problems: [{ path: '', message: `not valid JSON${describeJsonError(text)}` }],
    });
  }
  const problems: ConfigProblem[] = [];
  const substituted = settleEmptyToken(parsed, substituteEnv(parsed, env, problems), problems);
  if (problems.length > 0) throw new ConfigError({ source: path, problems });
  const baseDir = dirname(path);
  return {
    config: withResolvedPaths(validate(substituted, path), baseDir),
    source: 'file',
    baseDir,
  };
}

function validate(input: unknown, source: string): KeelConfig {
  const result = configSchema.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError({
    source,
    problems: result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.'),
      message: issue.message,
    })),
  });
}

function withResolvedPaths(config: KeelConfig, baseDir: string): KeelConfig {
  return { ...config, sessionsDir: resolve(baseDir, config.sessionsDir) };
}

/** `${NAME:-}`: a variable with an explicitly empty default. */
const EXPLICIT_EMPTY = /^\$\{[A-Za-z_][A-Za-z0-9_]*:-\}$/;

/**
 * An `authToken` that ends up empty would silently turn authentication off, so it is a problem
 * naming the field, unless the file says so on purpose with an empty default: `"authToken":
 * "${KEEL_TOKEN:-}"` with the variable unset (or empty) means no token, not an empty one.
 */
function settleEmptyToken(raw: unknown, value: unknown, problems: ConfigProblem[]): unknown {
  const config = value as { server?: { authToken?: unknown } } | null;
  if (config?.server?.authToken !== '') return value;
  const written = (raw as { server: { authToken: unknown } }).server.authToken;
  if (typeof written === 'string' && EXPLICIT_EMPTY.test(written)) {
    delete config.server.authToken;
    return value;
  }
  problems.push({
    path: 'server.authToken',
    message:
      written === ''
        ? 'is empty: remove it to run without a token (loopback only)'
        : `is empty after substituting ${String(written)}: set the variable, or write "\${NAME:-}" to run without a token (loopback only)`,
  });
  return value;
}

function defaultConfig(env: Readonly<Record<string, string | undefined>>): {
  input: KeelConfigInput;
  source: ConfigSource;
} {
  const base = {
    server: {
      host: env['KEEL_HOST'] ?? '127.0.0.1',
      port: env['KEEL_PORT'] === undefined ? 7420 : Number(env['KEEL_PORT']),
      ...(env['KEEL_TOKEN'] === undefined ? {} : { authToken: env['KEEL_TOKEN'] }),
    },
    sessionsDir: env['KEEL_SESSIONS_DIR'] ?? '.keel/sessions',
  };
  const anthropic = env['ANTHROPIC_API_KEY'];
  if (anthropic) {
    return {
      source: 'anthropic-key',
      input: {
        ...base,
        providers: [
          {
            id: 'anthropic',
            api: 'anthropic-messages',
            profiles: [{ id: 'main', apiKey: anthropic }],
          },
        ],
        models: { primary: `anthropic/${env['KEEL_MODEL'] ?? 'claude-sonnet-5'}` },
      },
    };
  }
  const openai = env['OPENAI_API_KEY'];
  if (openai) {
    return {
      source: 'openai-key',
      input: {
        ...base,
        providers: [
          { id: 'openai', api: 'openai-chat', profiles: [{ id: 'main', apiKey: openai }] },
        ],
        models: { primary: `openai/${env['KEEL_MODEL'] ?? 'gpt-5.4-mini'}` },
      },
    };
  }
  return {
    source: 'demo',
    input: {
      ...base,
      providers: [
        {
          id: 'demo',
          api: 'demo',
          profiles: [
            { id: 'key-a', apiKey: 'demo' },
            { id: 'key-b', apiKey: 'demo' },
          ],
        },
        { id: 'demo-backup', api: 'demo' },
      ],
      models: { primary: 'demo/keel-demo', fallbacks: ['demo-backup/keel-demo-backup'] },
      tools: ['current_time', 'roll_dice'],
    },
  };
}
