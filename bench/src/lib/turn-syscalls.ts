/**
 * The file-system calls of a turn, counted by `strace`: `turn-syscalls-child.ts` runs turns of
 * the orchestrator on the file store under `strace -f -y` (every descriptor shown with its path),
 * and every call between its two markers that names a file of its sessions directory counts
 * (libuv's own wake-ups and the process's other descriptors do not). `undefined` without strace.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface TurnSyscalls {
  turns: number;
  /** Calls per turn (one message each), by system call name, most first. */
  byCall: Array<[string, number]>;
  perTurn: number;
}

/** The child's settings: `SESSIONS` (default 8) and `SEED=1` (see `turn-syscalls-child.ts`). */
export interface TurnSyscallsOptions {
  env?: Record<string, string>;
}

export async function countTurnSyscalls(
  turns: number,
  options: TurnSyscallsOptions = {},
): Promise<TurnSyscalls | undefined> {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const dir = await mkdtemp(join(tmpdir(), 'keel-bench-syscalls-'));
  try {
    const sessionsDir = join(dir, 'sessions');
    const marker = join(dir, 'marker');
    const trace = join(dir, 'trace.txt');
    const child = fileURLToPath(new URL('./turn-syscalls-child.ts', import.meta.url));
    const run = spawnSync(
      'strace',
      ['-f', '-y', '-o', trace, process.execPath, '--import', 'tsx', child],
      {
        env: {
          ...process.env,
          ...options.env,
          SESSIONS_DIR: sessionsDir,
          MARKER: marker,
          TURNS: String(turns),
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    if (run.status !== 0) throw new Error(`the traced turns failed (${run.status})`);
    const lines = (await readFile(trace, 'utf8')).split('\n');
    const start = lines.findIndex((line) => line.includes(`${marker}.start`));
    const end = lines.findIndex((line) => line.includes(`${marker}.end`));
    const counts = new Map<string, number>();
    for (const line of lines.slice(start + 1, end)) {
      if (!line.includes(sessionsDir)) continue;
      const name = /^\d+\s+(?:<\.\.\. )?([a-z0-9_]+)/.exec(line)?.[1];
      // A call strace split in two (`<unfinished ...>`, then `<... resumed>`) counts once.
      if (name === undefined || line.includes(' resumed>')) continue;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    const byCall = [...counts.entries()]
      .map(([name, count]): [string, number] => [name, count / turns])
      .sort((a, b) => b[1] - a[1]);
    return { turns, byCall, perTurn: byCall.reduce((sum, [, count]) => sum + count, 0) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
