import type { SessionLease } from '@keel/spec';
import type { PostgresPool } from './postgres-pool';
import { createSchemaGate, type SchemaGate } from './schema-gate';
import { createSessionListener, type SessionListener } from './session-notifications';

/** Lease settings shared by every session of one store. */
export interface LeaseSettings {
  ttlMs: number;
  timeoutMs: number;
  pollMs: number;
  /** `undefined`: a third of each lease's ttl. */
  heartbeatMs: number | undefined;
  holder: string;
}

/** What the parts of one session store share. */
export interface StoreContext extends SchemaGate {
  pool: PostgresPool;
  lease: LeaseSettings;
  /** The leases this store holds now, by session: an append that names only `expected` uses one. */
  liveLeases: Map<string, SessionLease>;
  /** Stops every heartbeat of this store's leases (on `close()`). */
  heartbeats: Set<() => void>;
  /** Hears other gateways' changes and lease releases (one `LISTEN` connection, once needed). */
  listener: SessionListener;
}

export function createStoreContext(options: {
  pool: PostgresPool;
  schema: string;
  migrate: boolean;
  lease: LeaseSettings;
}): StoreContext {
  const gate = createSchemaGate(options);
  return {
    get schema() {
      return gate.schema;
    },
    get closed() {
      return gate.closed;
    },
    set closed(value: boolean) {
      gate.closed = value;
    },
    ready: gate.ready,
    pool: options.pool,
    lease: options.lease,
    liveLeases: new Map(),
    heartbeats: new Set(),
    listener: createSessionListener({ pool: options.pool, schema: gate.schema }),
  };
}
