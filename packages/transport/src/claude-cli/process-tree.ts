import { readdirSync, readFileSync } from 'node:fs';

/** A process as seen once: its pid and its start time, so a reused pid is never signalled. */
export interface ProcessRecord {
  pid: number;
  startTime: string;
}

interface ProcStat {
  ppid: number;
  state: string;
  startTime: string;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
    // stime cutime cstime priority nice threads itrealvalue starttime ..."; comm may hold spaces.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    const ppid = Number(fields[1]);
    const startTime = fields[19];
    if (state === undefined || startTime === undefined || Number.isNaN(ppid)) return undefined;
    return { ppid, state, startTime };
  } catch {
    return undefined;
  }
}

/**
 * Every living descendant of `rootPid` (children, grandchildren, … in any session or process
 * group), from `/proc`. Empty where there is no `/proc`: then only the process group is reached.
 */
export function listDescendants(rootPid: number): ProcessRecord[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, Array<{ pid: number; startTime: string }>>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = readStat(pid);
    if (stat === undefined || stat.state === 'Z') continue;
    const list = children.get(stat.ppid) ?? [];
    list.push({ pid, startTime: stat.startTime });
    children.set(stat.ppid, list);
  }
  const found: ProcessRecord[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const parent = queue.shift() as number;
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** True while the process exists and is not a zombie (and, with a record, is the same process). */
export function isProcessAlive(process_: number | ProcessRecord): boolean {
  const pid = typeof process_ === 'number' ? process_ : process_.pid;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = readStat(pid);
  if (stat === undefined) return true;
  if (stat.state === 'Z') return false;
  return typeof process_ === 'number' || stat.startTime === process_.startTime;
}

/** Sends `signal` to each recorded process that is still the same process. Never throws. */
export function signalProcesses(records: readonly ProcessRecord[], signal: NodeJS.Signals): void {
  for (const record of records) {
    if (!isProcessAlive(record)) continue;
    try {
      process.kill(record.pid, signal);
    } catch {
      // gone in the meantime
    }
  }
}

/** Sends `signal` to the process group led by `pid`. Never throws. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone
  }
}
