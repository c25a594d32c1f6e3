import { GCProfiler, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options?: { type?: 'minor' | 'major' }) => void;
let collect: Collect | undefined;

/** V8's `gc()`, exposed at run time (tests run without `--expose-gc`). */
function collector(): Collect {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as Collect;
  }
  return collect;
}

export interface PromotedBytesOptions {
  /** Calls of `make`; default 400. */
  calls?: number;
  /** A young collection (scavenge) is forced after every this many calls; default 4. */
  every?: number;
}

/**
 * Bytes per call of `make` that V8's scavenges moved into the old generation while it ran `calls`
 * times, a scavenge forced every few calls (`v8.GCProfiler`: the old space after each scavenge
 * against before it). What a call lets go of must die young: an object a call made and dropped,
 * promoted nonetheless, is kept alive by something the scavenger treats as a root — an old object
 * pointing at it, such as the accessor pair of a getter written in an object literal, which V8
 * allocates in the old generation with the getter's closure, and so that closure's whole scope,
 * behind it. Old objects die only at a full collection: each promoted byte is paid again there.
 */
export async function promotedBytes(
  make: (index: number) => unknown,
  options: PromotedBytesOptions = {},
): Promise<number> {
  const gc = collector();
  const calls = options.calls ?? 400;
  const every = options.every ?? 4;
  gc();
  const profiler = new GCProfiler();
  profiler.start();
  for (let index = 0; index < calls; index += 1) {
    await make(index);
    if ((index + 1) % every === 0) gc({ type: 'minor' });
  }
  // Twice at the end: what the last calls made is promoted only if it survives two.
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  const { statistics } = profiler.stop();
  let promoted = 0;
  for (const { gcType, beforeGC, afterGC } of statistics) {
    if (gcType !== 'Scavenge') continue;
    promoted += Math.max(0, oldSpace(afterGC) - oldSpace(beforeGC));
  }
  return promoted / calls;
}

function oldSpace(heap: {
  heapSpaceStatistics: Array<{ spaceName: string; spaceUsedSize: number }>;
}): number {
  return (
    heap.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0
  );
}
