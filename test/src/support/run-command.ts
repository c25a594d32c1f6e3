import { spawn } from 'node:child_process';
import { delimiter } from 'node:path';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCommandOptions {
  cwd: string;
  /** Merged over `cleanEnvironment()`. */
  env?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * The environment a user's shell would give a child: `PATH` without the workspace's
 * `node_modules/.bin` folders, `HOME` (npm's cache and config) and the certificate and proxy
 * settings the registry needs. Nothing else leaks in from the workspace or from vitest
 * (`NODE_OPTIONS`, `NODE_PATH`, pnpm's `npm_config_*`).
 */
export function cleanEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  const path = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((entry) => !/node_modules[\\/]\.bin$/.test(entry))
    .join(delimiter);
  env['PATH'] = path;
  for (const name of Object.keys(process.env)) {
    if (/^(HOME|TMPDIR|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR)$|_proxy$/i.test(name)) {
      env[name] = process.env[name] ?? '';
    }
  }
  return env;
}

/** Runs `command` to its end and collects its output; rejects only if it cannot start. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...cleanEnvironment(), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `runCommand`, then throws with the whole output unless the command exited 0. */
export async function runChecked(
  command: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  const result = await runCommand(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd}) exited ${result.code}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}
