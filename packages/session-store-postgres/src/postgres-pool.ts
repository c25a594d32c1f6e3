import pg from 'pg';
import { abortable } from './abortable';
import { PostgresStoreError } from './postgres-store-error';

/** A query's answer, as `pg` gives it: `int8` and `numeric` columns arrive as strings. */
export interface PostgresQueryResult {
  rows: Array<Record<string, unknown>>;
  rowCount: number | null;
}

/** One connection checked out of a pool (what `pg`'s `PoolClient` offers and this package uses). */
export interface PostgresClient {
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  /** Returns the connection to the pool; with an error (or `true`) the connection is closed instead. */
  release(error?: Error | boolean): void;
  /** `pg`'s client emits `error` when its connection dies while it is checked out (see `checkOut`). */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  removeListener?(event: 'error', listener: (error: Error) => void): unknown;
}

/** A connection pool: a `pg.Pool` fits (declared here so that `@types/pg` is not needed to use this package). */
export interface PostgresPool {
  connect(): Promise<PostgresClient>;
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  end(): Promise<void>;
}

/** Where to connect: a pool shared with the caller, or a connection string this package opens a pool for. */
export type PostgresConnectionOptions =
  | {
      /** Used as is; `close()` leaves it open (its owner ends it). */
      pool: PostgresPool;
      connectionString?: undefined;
    }
  | {
      /** `postgresql://user:password@host:port/database`; `close()` ends the pool opened for it. */
      connectionString: string;
      /** Connections of the pool opened for `connectionString`; default 10. */
      maxConnections?: number;
      /** Bounds on every wait of the pool opened for `connectionString` (see `PostgresTimeouts`). */
      timeouts?: PostgresTimeouts;
      pool?: undefined;
    };

/**
 * How long the pool opened for a `connectionString` waits on the database, so that a database
 * that is down or frozen (SIGSTOP, a paused VM, a partition) fails a call instead of hanging it.
 * A pool given as `pool` keeps its own settings (set `connectionTimeoutMillis`, `query_timeout`
 * and `statement_timeout` on it).
 */
export interface PostgresTimeouts {
  /** A new connection (or a free one of a full pool) within this; default 5 000 ms. */
  connectMs?: number;
  /** The driver gives up on a query's answer after this (`query_timeout`); default 15 000 ms. */
  queryMs?: number;
  /** The server cancels a statement running longer (`statement_timeout`); default 10 000 ms. */
  statementMs?: number;
}

/** The defaults of `PostgresTimeouts`. */
const DEFAULT_POSTGRES_TIMEOUTS: Readonly<Required<PostgresTimeouts>> = Object.freeze({
  connectMs: 5_000,
  queryMs: 15_000,
  statementMs: 10_000,
});

/** The pool to use and whether `close()` must end it. */
export interface ResolvedPool {
  pool: PostgresPool;
  owned: boolean;
}

export function resolvePool(options: PostgresConnectionOptions): ResolvedPool {
  if (options.pool !== undefined) return { pool: options.pool, owned: false };
  if (typeof options.connectionString !== 'string' || options.connectionString === '') {
    throw new PostgresStoreError({ message: 'Give either a pool or a connectionString' });
  }
  const timeouts = { ...DEFAULT_POSTGRES_TIMEOUTS, ...definedOnly(options.timeouts) };
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new PostgresStoreError({
        message: `timeouts.${name} must be a positive number of ms`,
      });
    }
  }
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: Math.ceil(timeouts.connectMs),
    query_timeout: Math.ceil(timeouts.queryMs),
    statement_timeout: Math.ceil(timeouts.statementMs),
    keepAlive: true,
  });
  // An idle connection that breaks (a server restart) must not crash the process: the next
  // query on it fails instead and is reported to its caller.
  pool.on('error', () => {});
  boundEnd(pool, timeouts.connectMs);
  return { pool, owned: true };
}

/** What this package reaches of a `pg` client: its `end` event, and its socket to destroy it. */
interface ClientSocket {
  once(event: 'end', listener: () => void): unknown;
  connection?: { stream?: { destroy(): void } };
}

/**
 * Makes `pool.end()` let the process exit even when the database is frozen. `pg` ends a
 * connection politely (a Terminate message, then the socket half-closed until the server closes
 * it), so against a stopped server the sockets would stay open forever and keep the process
 * alive after a graceful stop. Connections not closed `graceMs` after `end()` are destroyed.
 */
function boundEnd(pool: pg.Pool, graceMs: number): void {
  const open = new Set<ClientSocket>();
  pool.on('connect', (connected) => {
    const client = connected as unknown as ClientSocket;
    open.add(client);
    client.once('end', () => open.delete(client));
  });
  const end = pool.end.bind(pool);
  let ending: Promise<void> | undefined;
  pool.end = (() => {
    ending ??= (async () => {
      await end();
      if (open.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(
          [...open].map(
            (client) => new Promise((resolve) => client.once('end', () => resolve(undefined))),
          ),
        ),
        new Promise((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
      for (const client of open) client.connection?.stream?.destroy();
    })();
    return ending;
  }) as typeof pool.end;
}

function definedOnly(timeouts: PostgresTimeouts | undefined): PostgresTimeouts {
  const defined: PostgresTimeouts = {};
  if (timeouts?.connectMs !== undefined) defined.connectMs = timeouts.connectMs;
  if (timeouts?.queryMs !== undefined) defined.queryMs = timeouts.queryMs;
  if (timeouts?.statementMs !== undefined) defined.statementMs = timeouts.statementMs;
  return defined;
}

/**
 * What a checked-out `pg` client's `error` event is given. The pool listens to its idle clients
 * only: a connection that dies between two statements of a transaction (the server ended an idle
 * transaction, restarted, or a backend was terminated) would otherwise be an unhandled `error`
 * event and crash the process. The failure reaches the caller anyway: the next query rejects.
 */
function ignoreCheckedOutError(): void {}

/**
 * Checks a connection out of the pool; rejects as soon as `signal` aborts (a late connection goes
 * back). Give it back with `checkIn`.
 */
export async function checkOut(
  pool: PostgresPool,
  signal: AbortSignal | undefined,
): Promise<PostgresClient> {
  signal?.throwIfAborted();
  const connecting = pool.connect();
  try {
    const client = await abortable(connecting, signal);
    client.on?.('error', ignoreCheckedOutError);
    return client;
  } catch (error) {
    connecting.then(
      (client) => client.release(),
      () => {},
    );
    throw error;
  }
}

/**
 * Runs `work` in one transaction on one connection: `COMMIT` when it resolves, `ROLLBACK` when it
 * throws. A connection whose `BEGIN`, `COMMIT` or `ROLLBACK` failed is closed rather than reused.
 *
 * With `idleTimeoutMs`, the server ends the transaction (and its connection) when this process
 * leaves it idle that long between two statements: a process frozen inside it (SIGSTOP, a VM
 * paused, a partition) would otherwise hold its row locks — a session's fencing counter — until
 * it runs again, and no other gateway could take the session meanwhile.
 */
export async function inTransaction<T>(
  pool: PostgresPool,
  signal: AbortSignal | undefined,
  work: (client: PostgresClient) => Promise<T>,
  options: { idleTimeoutMs?: number } = {},
): Promise<T> {
  const client = await checkOut(pool, signal);
  let reusable = false;
  try {
    await client.query(
      options.idleTimeoutMs === undefined
        ? 'BEGIN'
        : `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${Math.max(1, Math.ceil(options.idleTimeoutMs))}`,
    );
    let result: T;
    try {
      result = await work(client);
    } catch (error) {
      await client.query('ROLLBACK').then(
        () => {
          reusable = true;
        },
        () => {},
      );
      throw error;
    }
    await client.query('COMMIT');
    reusable = true;
    return result;
  } finally {
    checkIn(client, !reusable);
  }
}

/** Gives a connection from `checkOut` back to the pool (closed instead when `broken`). */
function checkIn(client: PostgresClient, broken: boolean): void {
  client.removeListener?.('error', ignoreCheckedOutError);
  client.release(broken);
}

/** A schema name as an SQL identifier; only plain lower-case names are accepted. */
export function quoteSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new PostgresStoreError({
      message: `Invalid schema name ${JSON.stringify(schema)}: use 1-63 characters [a-z0-9_], not starting with a digit`,
    });
  }
  return `"${schema}"`;
}

/** A `bigint` column as `pg` returns it (a decimal string), as a JavaScript number: only for sizes and clock ms, never tokens. */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value as string);
}
