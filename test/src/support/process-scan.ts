import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Live processes whose working directory is `cwd` (optionally with this exact command line). */
export function processesIn(cwd: string, commandLine?: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state === 'Z' || readlinkSync(`/proc/${entry}/cwd`) !== cwd) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (commandLine === undefined || cmdline === commandLine) pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/** SIGKILLs every process in `cwd` (what a crashed gateway leaves running). */
export function killProcessesIn(cwd: string): void {
  for (const pid of processesIn(cwd)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
