/** Bytes handed out per slab: a slab is one allocation shared by the reads made from it. */
const SLAB_BYTES = 64 * 1024;
/** Larger requests get an allocation of their own. */
const LARGEST_SHARED = 16 * 1024;

let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let used = 0;

/**
 * `length` uninitialized bytes for a read whose result is compared, hashed or copied and then
 * dropped (a transcript check's ranges). Cut from a 64 KiB slab, as `Buffer.allocUnsafe` cuts
 * small buffers from its pool: Node's pool takes only requests under 4 KiB, so each 4 KiB range
 * was an allocation of its own (an `ArrayBuffer` and its backing store, 3–5 % of a turn's CPU).
 * Never shared: a view is never handed out twice, and a full slab is left to the collector
 * once its views are gone. Whoever keeps the bytes must copy them (a view keeps its whole slab).
 */
export function transientBytes(length: number): Buffer {
  if (length > LARGEST_SHARED) return Buffer.allocUnsafe(length);
  if (used + length > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    used = 0;
  }
  const view = slab.subarray(used, used + length);
  // Aligned to 8 bytes, as Node's pool aligns its buffers.
  used = (used + length + 7) & ~7;
  return view;
}
