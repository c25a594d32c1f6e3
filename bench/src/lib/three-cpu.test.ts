import { describe, expect, it } from 'vitest';
import { allThree, threeCpuMs, threeCpuPerMessage } from './three-cpu';

describe('the CPU of client, provider and server', () => {
  it('per message of a block: each process its own difference, the server by thread', () => {
    const before = { client: 100, provider: 50, server: { main: 200, other: 20 } };
    const after = { client: 140, provider: 70, server: { main: 300, other: 60 } };
    const per = threeCpuPerMessage(before, after, 20);
    expect(per).toEqual({ client: 2, provider: 1, server: { main: 5, other: 2 } });
    expect(allThree(per)).toBe(10);
  });

  it('without a server process: the client and the provider only', async () => {
    const now = await threeCpuMs(process.pid, undefined);
    expect(now.server).toBeUndefined();
    expect(now.provider).toBeGreaterThanOrEqual(0);
    const per = threeCpuPerMessage(
      { client: 0, provider: 0, server: undefined },
      { client: 6, provider: 3, server: undefined },
      3,
    );
    expect(allThree(per)).toBe(3);
  });
});
