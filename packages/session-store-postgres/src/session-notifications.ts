import { createHash } from 'node:crypto';
import type { PostgresClient, PostgresPool } from './postgres-pool';

/**
 * Why waiting gateways hear of a change at once: every append and every turn claim's end sends a
 * PostgreSQL `NOTIFY` on the schema's channel (in the writing transaction, so it goes out on
 * commit), every lease let go one on the schema's lease channel, and one dedicated `LISTEN`
 * connection per store wakes the local waiters of that session. A hint only: a waiter looks again
 * when woken and anyway after its `timeoutMs` (a lost connection, a notification sent while it
 * reconnected).
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
  /**
   * Starts hearing the session's lease being let go (at any gateway), without waiting yet: a
   * waiter subscribes before it looks, so a release while it looks is not missed. Connects only
   * once `listen()` was called.
   */
  leaseReleases(sessionId: string): Subscription;
  /** Connects the listening connection unless it is up or connecting (or failed < `retryMs` ago). */
  listen(): void;
  /** Lets the listening connection go; later waits only time out. */
  close(): Promise<void>;
}

/** Announcements of one session, heard from the moment it was made until `stop()`. */
export interface Subscription {
  /**
   * Resolves `true` at once if an announcement came since the last `next` (or the subscription),
   * else at the next one; `false` after `timeoutMs` without. Rejects with the signal's reason on
   * abort.
   */
  next(options: { timeoutMs: number; signal?: AbortSignal }): Promise<boolean>;
  stop(): void;
}

/** The channel of one schema's session changes (a plain identifier, whatever the schema's name). */
export function channelOf(schema: string): string {
  return `keel_sessions_${schemaHash(schema)}`;
}

/** The channel on which one schema's leases are announced as let go (payload: the session id). */
export function leaseChannelOf(schema: string): string {
  return `keel_leases_${schemaHash(schema)}`;
}

/** The one statement the listening connection runs. */
export function listenSql(schema: string): string {
  return `LISTEN ${channelOf(schema)}; LISTEN ${leaseChannelOf(schema)}`;
}

function schemaHash(schema: string): string {
  return createHash('sha256').update(schema).digest('hex').slice(0, 16);
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
  removeListener?(event: string, listener: (...args: never[]) => void): unknown;
}

export interface SessionListenerOptions {
  pool: PostgresPool;
  /** The schema, quoted for SQL, as the store uses it. */
  schema: string;
  /** How soon after a failed or lost connection listening is tried again; default 1 000 ms. */
  retryMs?: number;
  /**
   * How long the connection is kept while nobody waits; default 5 000 ms. Let go then, it goes
   * back to the pool, so a pool ended without closing the store is not held open by it.
   */
  idleMs?: number;
}

/**
 * The store's listener: it connects on the first wait (a store that never waits holds no extra
 * connection), lets the connection go once nobody waited for `idleMs`, and after a lost connection
 * reconnects on a later wait, at most once per `retryMs`.
 */
export function createSessionListener(options: SessionListenerOptions): SessionListener {
  const channel = channelOf(options.schema);
  const leaseChannel = leaseChannelOf(options.schema);
  const retryMs = options.retryMs ?? 1_000;
  const idleMs = options.idleMs ?? 5_000;
  /** Each kind's subscribers by session: each told of every announcement of its session. */
  const changes = new Map<string, Set<() => void>>();
  const releases = new Map<string, Set<() => void>>();
  /** The listening connection and how to let it go (once). */
  let client: { drop(error?: Error | 'idle'): void } | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let connecting: Promise<void> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  let closed = false;

  const onNotification = (message: { channel: string; payload?: string }) => {
    const { payload } = message;
    if (payload === undefined) return;
    // A change's payload ends with random digits (see `notifySql`); a release's is the id alone.
    const [subscribers, sessionId] =
      message.channel === channel
        ? [changes, payload.slice(0, payload.lastIndexOf(' '))]
        : message.channel === leaseChannel
          ? [releases, payload]
          : [undefined, payload];
    for (const hear of [...(subscribers?.get(sessionId) ?? [])]) hear();
  };

  function listen(): void {
    if (closed || client !== undefined || connecting !== undefined) return;
    if (Date.now() - failedAt < retryMs) return;
    connecting = (async () => {
      const connection = (await options.pool.connect()) as unknown as ListeningClient;
      let dropped = false;
      const held = { drop: (error?: Error | 'idle') => drop(error) };
      const drop = (error?: Error | 'idle') => {
        if (dropped) return;
        dropped = true;
        if (client === held) client = undefined;
        connection.removeAllListeners?.('notification');
        if (error === 'idle') {
          // Back to the pool, listening no more (the handlers stay until then: a connection lost
          // meanwhile must not crash the process).
          const release = (failed?: Error | true) => {
            connection.removeListener?.('error', onError);
            connection.removeListener?.('end', onEnd);
            connection.release(failed);
          };
          void connection.query('UNLISTEN *').then(
            () => release(),
            (failed: unknown) => release(failed instanceof Error ? failed : true),
          );
          return;
        }
        failedAt = Date.now();
        connection.release(error ?? true);
      };
      // A lost connection must not crash the process (`pg` throws an unheard `error`).
      const onError = (error?: Error) => drop(error);
      const onEnd = () => drop();
      connection.on('notification', onNotification);
      connection.on('error', onError);
      connection.on('end', onEnd);
      try {
        await connection.query(listenSql(options.schema));
      } catch (error) {
        drop(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (closed) drop();
      else if (!dropped) {
        client = held;
        dropWhenIdle();
      }
    })()
      .catch(() => {
        failedAt = Date.now();
      })
      .finally(() => {
        connecting = undefined;
      });
  }

  /** Lets the connection go once nobody waited for `idleMs`. */
  function dropWhenIdle(): void {
    if (changes.size > 0 || releases.size > 0 || client === undefined) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (changes.size === 0 && releases.size === 0) client?.drop('idle');
    }, idleMs);
    idleTimer.unref?.();
  }

  function subscribe(subscribers: Map<string, Set<() => void>>, sessionId: string): Subscription {
    let heard = false;
    let wake: (() => void) | undefined;
    const hear = () => {
      heard = true;
      wake?.();
    };
    let set = subscribers.get(sessionId);
    if (set === undefined) {
      set = new Set();
      subscribers.set(sessionId, set);
    }
    set.add(hear);
    const mine = set;
    return {
      next({ timeoutMs, signal }) {
        return new Promise<boolean>((resolve, reject) => {
          if (signal?.aborted) {
            reject(signal.reason);
            return;
          }
          if (heard) {
            heard = false;
            resolve(true);
            return;
          }
          const finish = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            wake = undefined;
          };
          wake = () => {
            finish();
            heard = false;
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
          signal?.addEventListener('abort', onAbort, { once: true });
        });
      },
      stop() {
        wake = undefined;
        mine.delete(hear);
        if (mine.size === 0 && subscribers.get(sessionId) === mine) subscribers.delete(sessionId);
        dropWhenIdle();
      },
    };
  }

  return {
    async waitForChange(sessionId, { timeoutMs, signal }) {
      listen();
      const subscription = subscribe(changes, sessionId);
      try {
        return await subscription.next({ timeoutMs, ...(signal === undefined ? {} : { signal }) });
      } finally {
        subscription.stop();
      }
    },
    leaseReleases: (sessionId) => subscribe(releases, sessionId),
    listen,
    async close() {
      closed = true;
      clearTimeout(idleTimer);
      await connecting;
      client?.drop();
    },
  };
}
