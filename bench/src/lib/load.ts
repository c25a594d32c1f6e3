/**
 * Closed-loop load: `concurrency` workers, each sending its next request as soon as the last one
 * answered, until `total` requests were sent. Resolves with the requests per second and each
 * request's latency in ms.
 */
export async function closedLoop(
  options: { total: number; concurrency: number },
  request: (index: number, worker: number) => Promise<unknown>,
): Promise<{ perSecond: number; latencies: number[] }> {
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      while (next < options.total) {
        const index = next++;
        const begin = performance.now();
        await request(index, worker);
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: options.total / seconds, latencies };
}
