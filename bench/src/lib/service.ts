import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/** A child process that serves on loopback (the Keel gateway, Portkey, the mock provider). */
export interface Service {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The last lines it printed (stdout and stderr), for error messages. */
  tail(): string;
  /** The first line (past or future) that matches, with the match. */
  waitForLine(pattern: RegExp): Promise<RegExpExecArray>;
  /** Its peak resident set size so far (Linux `VmHWM`), in MiB; `undefined` elsewhere. */
  peakRssMiB(): Promise<number | undefined>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
  /** `kill -9`: resolves once it exited. */
  kill(): Promise<void>;
  readonly exited: Promise<number | string>;
}

/** Starts `node args…` (stdout and stderr read line by line, so it never blocks on a full pipe). */
export function startService(
  args: string[],
  options: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    nodeOptions?: readonly string[];
    ipc?: boolean;
  } = {},
): Service {
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (match: RegExpExecArray) => void }> = [];
  const onLine = (line: string) => {
    lines.push(line);
    if (lines.length > 200) lines.shift();
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(line);
      if (match === null) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(match);
    }
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', onLine);
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', onLine);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    pid: child.pid ?? -1,
    exited,
    tail: () => lines.slice(-40).join('\n'),
    waitForLine(pattern) {
      return new Promise((resolve, reject) => {
        for (const line of lines) {
          const match = pattern.exec(line);
          if (match !== null) return resolve(match);
        }
        waiters.push({ pattern, resolve });
        void exited.then((code) =>
          reject(
            new Error(`process exited (${code}) before printing ${pattern}:\n${lines.join('\n')}`),
          ),
        );
      });
    },
    async peakRssMiB() {
      try {
        const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
        const match = /VmHWM:\s+(\d+) kB/.exec(status);
        return match?.[1] === undefined ? undefined : Number(match[1]) / 1024;
      } catch {
        return undefined;
      }
    },
    async stop(graceMs = 5_000) {
      if (!alive()) return void (await exited);
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (alive()) child.kill('SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (alive()) child.kill('SIGKILL');
      await exited;
    },
  };
}
