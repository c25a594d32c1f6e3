import { setFlagsFromString } from 'node:v8';

/** The V8 flag the gateway sets: a heap that follows what it keeps. */
export const HEAP_FLAG = '--optimize-for-size';

/**
 * Asks V8 to favour a small heap (`--optimize-for-size`), unless `node` was started with that
 * flag or its negation (`--no-optimize-for-size`, in `execArgv`; `NODE_OPTIONS` cannot carry it).
 * By its own heuristics V8 lets a busy process's heap grow well past what is alive (a 32 MiB young
 * generation, an old generation left fragmented by caches that forget their least recently used
 * entries), and that memory stays resident; with the flag it keeps the young generation small
 * and compacts fragmented pages, for some more collection work. Returns the flag set, or
 * `undefined`.
 */
export function boundHeap(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
): string | undefined {
  if (execArgv.some((arg) => /^--(no-)?optimize[-_]for[-_]size$/.test(arg))) return undefined;
  setFlags(HEAP_FLAG);
  return HEAP_FLAG;
}
