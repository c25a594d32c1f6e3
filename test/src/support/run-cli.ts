import { spawn } from 'node:child_process';
import { GATEWAY_CLI } from './gateway-process';

export interface CliRun {
  /** The exit code, or `'listening'` when the gateway started (it is then stopped). */
  code: number | string;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built gateway's command line to its end (for arguments and configurations that must
 * stop it). A gateway that starts instead is stopped with SIGTERM and reported as `'listening'`.
 */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', ...options.env };
  const child = spawn(process.execPath, [GATEWAY_CLI, ...args], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let listening = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (!listening && stdout.includes('keel gateway listening')) {
      listening = true;
      child.kill('SIGTERM');
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    child.once('close', (code, signal) =>
      resolve({ code: listening ? 'listening' : (code ?? signal ?? 'unknown'), stdout, stderr }),
    );
  });
}
