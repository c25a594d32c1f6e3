import { useTestDatabase } from '@keel/postgres-test-server';
import { describeSessionStorageBehaviour } from '../test/session-storage-behaviour';
import { createPostgresSessionStorage } from './postgres-session-storage';

const database = useTestDatabase();
let next = 0;

// Each handle is one "gateway": its own store (leases, heartbeats) over one of three pools.
describeSessionStorageBehaviour('postgres', {
  create: () => {
    next += 1;
    return createPostgresSessionStorage({ pool: gatewayPool(next % 3), lease: { ttlMs: 5_000 } });
  },
});

const pools: ReturnType<typeof database.pool>[] = [];
function gatewayPool(index: number) {
  pools[index] ??= database.pool();
  return pools[index];
}
