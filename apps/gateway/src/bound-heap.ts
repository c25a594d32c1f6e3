import { setFlagsFromString } from 'node:v8';

/** The V8 flag the gateway sets: a heap that follows what it keeps. */
export const HEAP_FLAG = '--optimize-for-size';

/**
 * Asks V8 to favour a small heap (`--optimize-for-size`), unless `node` was started with that
 * flag or its negation (`--no-optimize-for-size`, in `execArgv`; `NODE_OPTIONS` cannot carry it).
 * By its own heuristics V8 lets a busy process's heap grow well past what is alive (a 32 MiB young
 * generation, an old generation left fragmented by caches that forget their least recently used
 * entries), and that memory stays resident; with the flag it keeps the young generation small
 * and compacts fragmented pages, for more collection work. Side by side (BENCHMARKS.md, "Issue 20:
 * bounded memory") it is the only launch tried that stays under 200 MiB and flat: V8's defaults
 * and a smaller young generation alone (`--max-semi-space-size=1` or 4) pass 200 MiB within
 * 10 000 messages, `=2` was under it at 10 000 in one run but still growing (over it in another);
 * it costs 1.3–1.6× the CPU per message of those. Returns the flag set, or `undefined`.
 */
export function boundHeap(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
): string | undefined {
  if (execArgv.some((arg) => /^--(no-)?optimize[-_]for[-_]size$/.test(arg))) return undefined;
  setFlags(HEAP_FLAG);
  return HEAP_FLAG;
}
