import { createHash } from 'node:crypto';
import type { PostgresClient, PostgresPool } from './postgres-pool';

/**
 * Why waiting gateways hear of a change at once: every append and every turn claim's end sends a
 * PostgreSQL `NOTIFY` on the schema's channel (in the writing transaction, so it goes out on
 * commit), and one dedicated `LISTEN` connection per store wakes the local waiters of that
 * session. A hint only: a waiter looks again when woken and anyway after its `timeoutMs` (a lost
 * connection, a notification sent while it reconnected).
 */
export interface SessionListener {
  /**
   * Resolves `true` when a change of the session is announced, `false` after `timeoutMs` without
   * one (or while this store cannot listen). Rejects with the signal's reason on abort.
   */
  waitForChange(
    sessionId: string,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<boolean>;
  /** Lets the listening connection go; later waits only time out. */
  close(): Promise<void>;
}

/** The channel of one schema's session changes (a plain identifier, whatever the schema's name). */
export function channelOf(schema: string): string {
  return `keel_sessions_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}

/**
 * The statement that announces a change of `$1` (the session id) on the schema's channel. The
 * payload ends with random digits: PostgreSQL folds identical notifications of one transaction.
 */
export function notifySql(schema: string): string {
  return `SELECT pg_notify('${channelOf(schema)}', $1::text || ' ' || md5(random()::text))`;
}

/** A pooled connection that also reports notifications and its end (what `pg`'s client does). */
interface ListeningClient extends Pick<PostgresClient, 'query' | 'release'> {
  on(
    event: 'notification',
    listener: (message: { channel: string; payload?: string }) => void,
  ): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeAllListeners?(event?: string): unknown;
}

export interface SessionListenerOptions {
  pool: PostgresPool;
  /** The schema, quoted for SQL, as the store uses it. */
  schema: string;
  /** How soon after a failed or lost connection listening is tried again; default 1 000 ms. */
  retryMs?: number;
}

/**
 * The store's listener: it connects on the first wait (a store that never waits holds no extra
 * connection), and after a lost connection reconnects on a later wait, at most once per `retryMs`.
 */
export function createSessionListener(options: SessionListenerOptions): SessionListener {
  const channel = channelOf(options.schema);
  const retryMs = options.retryMs ?? 1_000;
  const waiters = new Map<string, Set<() => void>>();
  /** The listening connection and how to let it go (once). */
  let client: { drop(error?: Error): void } | undefined;
  let connecting: Promise<void> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  let closed = false;

  const onNotification = (message: { channel: string; payload?: string }) => {
    if (message.channel !== channel || message.payload === undefined) return;
    const sessionId = message.payload.slice(0, message.payload.lastIndexOf(' '));
    for (const wake of [...(waiters.get(sessionId) ?? [])]) wake();
  };

  function listen(): void {
    if (closed || client !== undefined || connecting !== undefined) return;
    if (Date.now() - failedAt < retryMs) return;
    connecting = (async () => {
      const connection = (await options.pool.connect()) as unknown as ListeningClient;
      let dropped = false;
      const held = { drop: (error?: Error) => drop(error) };
      const drop = (error?: Error) => {
        if (dropped) return;
        dropped = true;
        if (client === held) client = undefined;
        failedAt = Date.now();
        connection.removeAllListeners?.('notification');
        connection.release(error ?? true);
      };
      connection.on('notification', onNotification);
      // A lost connection must not crash the process (`pg` throws an unheard `error`).
      connection.on('error', (error) => drop(error));
      connection.on('end', () => drop());
      try {
        await connection.query(`LISTEN ${channel}`);
      } catch (error) {
        drop(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (closed) drop();
      else if (!dropped) client = held;
    })()
      .catch(() => {
        failedAt = Date.now();
      })
      .finally(() => {
        connecting = undefined;
      });
  }

  return {
    waitForChange(sessionId, { timeoutMs, signal }) {
      listen();
      return new Promise<boolean>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        let set = waiters.get(sessionId);
        if (set === undefined) {
          set = new Set();
          waiters.set(sessionId, set);
        }
        const finish = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          set.delete(wake);
          if (set.size === 0 && waiters.get(sessionId) === set) waiters.delete(sessionId);
        };
        const wake = () => {
          finish();
          resolve(true);
        };
        const onAbort = () => {
          finish();
          reject(signal?.reason);
        };
        const timer = setTimeout(() => {
          finish();
          resolve(false);
        }, timeoutMs);
        set.add(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    async close() {
      closed = true;
      await connecting;
      client?.drop();
    },
  };
}
