/** One thing measured: a function timed once per round. */
export interface Variant {
  name: string;
  run(round: number): Promise<unknown>;
}

/**
 * Runs every variant once per round, `warmup` rounds first (not recorded), rotating the order
 * each round so no variant always follows the same one; returns each variant's times in ms.
 * Measured side by side, the ratios hold on a machine whose load drifts during the run.
 */
export async function interleave(
  variants: readonly Variant[],
  options: { rounds: number; warmup: number },
): Promise<Map<string, number[]>> {
  const times = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  for (let round = -options.warmup; round < options.rounds; round += 1) {
    const offset = ((round % variants.length) + variants.length) % variants.length;
    for (let index = 0; index < variants.length; index += 1) {
      const variant = variants[(index + offset) % variants.length] as Variant;
      const started = performance.now();
      await variant.run(round + options.warmup);
      const elapsed = performance.now() - started;
      if (round >= 0) times.get(variant.name)?.push(elapsed);
    }
  }
  return times;
}
