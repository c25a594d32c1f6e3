import { readdir, readFile } from 'node:fs/promises';

/** User and system CPU time in a Linux `stat` line (`/proc/<pid>/stat`, or a thread's), in ms. */
function cpuMsOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A process's CPU time so far (user and system, from Linux `/proc/<pid>/stat`), in ms. */
export async function processCpuMs(pid: number): Promise<number> {
  return cpuMsOf(await readFile(`/proc/${pid}/stat`, 'utf8'));
}

/** This process's CPU time so far (user and system, `process.cpuUsage`), in ms. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** A process's CPU time so far, by thread. */
export interface ThreadCpu {
  /** Its main thread: the event loop (JavaScript, the collector's pauses, synchronous calls). */
  main: number;
  /**
   * Its other threads together: in Node, V8's (concurrent marking, parallel scavenges, compiling)
   * and libuv's thread pool (fsync and the other asynchronous file-system calls).
   */
  other: number;
}

/**
 * A process's CPU time so far by thread, in ms (Linux `/proc/<pid>/task/<tid>/stat`). A thread that
 * has ended is no longer listed: its time is not counted (Node's worker threads live as long as
 * the process).
 */
export async function threadCpuMs(pid: number): Promise<ThreadCpu> {
  const total: ThreadCpu = { main: 0, other: 0 };
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // ended between the listing and the read
    }
    if (tid === String(pid)) total.main += cpuMsOf(stat);
    else total.other += cpuMsOf(stat);
  }
  return total;
}
