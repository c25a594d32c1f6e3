import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import {
  isProcessAlive,
  listDescendants,
  type ProcessRecord,
  signalGroup,
  signalProcesses,
} from './process-tree';

export interface CliProcessOptions {
  command: string;
  args: readonly string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Written to the CLI's stdin, which is then closed (the `-p` prompt). */
  stdin: string;
  /** How much of stderr to keep (its tail), in characters. */
  stderrLimit: number;
}

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started (e.g. `ENOENT`). */
  spawnError?: Error;
}

export type CliOutput = { type: 'line'; line: string } | ({ type: 'exit' } & CliExit);

/** One running CLI: stdout as lines, a bounded stderr tail, and a tree-wide kill. */
export interface CliProcess {
  readonly pid: number | undefined;
  /** The next stdout line, or the exit once stdout is drained. */
  next(): Promise<CliOutput>;
  /** The last `stderrLimit` characters of stderr, raw. */
  stderr(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<CliExit>;
  /**
   * Ends the process and everything it started: SIGTERM to its process group, SIGKILL to the
   * group and every descendant still alive after `graceMs` (at once when 0). Resolves once they
   * are gone. Later calls share the first one's work.
   */
  terminate(graceMs: number): Promise<void>;
}

/** How long to wait for a killed descendant to disappear before giving up on it. */
const REAP_WAIT_MS = 5_000;
/** How long stdout may stay open after the exit (a grandchild holding the pipe). */
const DRAIN_WAIT_MS = 2_000;

export function spawnCliProcess(options: CliProcessOptions): CliProcess {
  // detached: the CLI leads its own process group, so one signal reaches its helpers too.
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // A CLI that exits (or never starts) before reading its prompt closes the pipe: the exit or the
  // spawn error is what the call reports, never an EPIPE.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.stdin, 'utf8');
  const queue: CliOutput[] = [];
  const waiters: Array<(output: CliOutput) => void> = [];
  const push = (output: CliOutput) => {
    const waiter = waiters.shift();
    if (waiter) waiter(output);
    else queue.push(output);
  };
  let stderrTail = '';
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) push({ type: 'line', line });
  });
  child.stderr.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-options.stderrLimit);
  });
  const stdoutDone = new Promise<void>((resolve) => {
    child.stdout.once('close', () => resolve());
  });
  const exited = new Promise<CliExit>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, spawnError: error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  void exited.then(async (exit) => {
    const drained = await Promise.race([
      stdoutDone.then(() => true),
      delay(DRAIN_WAIT_MS, false, { ref: false }),
    ]);
    if (!drained) {
      child.stdout.destroy();
      child.stderr.destroy();
    }
    if (partial.trim() !== '') push({ type: 'line', line: partial });
    partial = '';
    push({ type: 'exit', ...exit });
  });

  const tracked = new Map<number, ProcessRecord>();
  let exitedYet = false;
  void exited.then(() => {
    exitedYet = true;
  });
  const track = () => {
    if (child.pid === undefined || exitedYet) return;
    for (const record of listDescendants(child.pid)) tracked.set(record.pid, record);
  };
  // The CLI may sit behind a wrapper script (npm's `.bin/claude` is a shell script that runs
  // the real binary as its child): the call is over only when the whole tree is gone.
  const treeAlive = () =>
    !exitedYet || [...tracked.values()].some((record) => isProcessAlive(record));
  const waitTreeGone = async (ms: number) => {
    const deadline = Date.now() + ms;
    while (treeAlive() && Date.now() < deadline) {
      track();
      await delay(25);
    }
  };
  const kill = async (graceMs: number) => {
    const pid = child.pid;
    if (pid === undefined) return;
    track();
    if (graceMs > 0 && treeAlive()) {
      signalGroup(pid, 'SIGTERM');
      await waitTreeGone(graceMs);
    }
    if (treeAlive()) {
      track();
      signalGroup(pid, 'SIGKILL');
      signalProcesses([...tracked.values()], 'SIGKILL');
    }
    await exited;
    // Whatever the CLI started and left behind (its tools' own sessions included) goes too.
    signalProcesses([...tracked.values()], 'SIGKILL');
    await waitTreeGone(REAP_WAIT_MS);
  };
  let termination: Promise<void> | undefined;

  return {
    pid: child.pid,
    next() {
      const output = queue.shift();
      if (output) return Promise.resolve(output);
      return new Promise((resolve) => waiters.push(resolve));
    },
    stderr: () => stderrTail,
    exited,
    terminate(graceMs) {
      termination ??= kill(graceMs);
      return termination;
    },
  };
}
