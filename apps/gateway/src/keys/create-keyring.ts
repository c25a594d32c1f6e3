// The client keys of a gateway in one place: who a credential belongs to, whether a key may make
// a request now (its rate limits and spend caps), which key owns which session, and what each
// key used (the usage route, the metrics). Only configured key ids ever become a metric label.
import { join } from 'node:path';
import { type BudgetLedger, type BudgetReservation, createBudgetLedger } from '@keel/orchestrator';
import type { TurnEvent, Usage } from '@keel/spec';
import type { Registry } from 'prom-client';
import { loadPostgres, requirePostgres } from '../compose/postgres-module';
import type { KeelConfig } from '../config/config-schema';
import { createCredentialLookup } from '../http/check-token';
import { attemptCost, costOf, type PriceBook } from '../observe/cost-of';
import type { KeySpend } from './create-spend-ledger';
import { createKeyMetrics } from './key-metrics';
import {
  capReachedIn,
  type KeySpendStore,
  openFileSpendStore,
  openPostgresSpendStore,
} from './key-spend-store';
import type { ClientKeyConfig } from './keys-schema';
import { openSessionOwners, type SessionOwners } from './open-session-owners';
import { openPostgresSessionOwners } from './pg-session-owners';

/** Who a request comes from. */
export interface ClientIdentity {
  /** The key's id; `undefined` for `server.authToken`. */
  readonly keyId: string | undefined;
  /** Every session, every key's usage, the operator routes. */
  readonly admin: boolean;
  /** What it may send as `model`; `undefined`: anything routable. */
  readonly models: ReadonlySet<string> | undefined;
}

export type Rejection = 'rpm' | 'tpm' | 'budget';

export type KeyAdmission =
  | {
      admitted: true;
      /** The request's reservation under the key's `rpm`/`tpm`, when the key has them. */
      ticket?: KeyTicket;
    }
  | { admitted: false; reason: Rejection; message: string; retryAfterMs?: number };

/** One admitted request's reservation, to be corrected by the usage of its own call. */
export interface KeyTicket {
  readonly keyId: string;
  /** The session the request writes to, when the route names one (a session's message). */
  sessionId: string | undefined;
}

/** What `GET /v1/keys/:keyId/usage` answers. */
export interface KeyUsage {
  key: string;
  /** Since this gateway started. */
  requests: number;
  rejected: Record<Rejection, number>;
  tokens: { input: number; output: number };
  costUsd: number;
  /** What is left of `rpm` and `tpm` in the sliding minute (only the limits the key has). */
  remaining: { rpm?: number; tpm?: number };
  /**
   * The current UTC day and month (kept across restarts; over PostgreSQL, every gateway's, by the
   * database's clock).
   */
  spend: KeySpend;
  limits: { rpm?: number; tpm?: number; spendCapUsd?: { day?: number; month?: number } };
}

export interface Keyring {
  /** Whether every request needs a credential (`server.authToken` or any key). */
  readonly required: boolean;
  readonly keyIds: readonly string[];
  readonly owners: SessionOwners;
  identify(
    authorization: string | undefined,
    apiKey?: string | string[],
  ): ClientIdentity | undefined;
  /**
   * Counts one model request of `keyId` now, reserving `estimatedTokens` (the request's size and
   * its `max_tokens`) under its `tpm`, or refuses it (a rate limit or a spend cap).
   */
  admit(keyId: string, estimatedTokens: number): Promise<KeyAdmission>;
  /**
   * A turn's or call's end: its tokens and cost go to the key it belongs to, and its reported
   * tokens correct its own request's reservation — `ticket` when the caller knows it (the
   * request's), else the oldest open one of the event's session; messages the turn folded in
   * (`steer`) have theirs settled at 0 (their tokens are the turn's). A reservation nothing
   * corrects keeps its estimate. A turn with no open reservation here (its message was admitted
   * by another gateway, whose reservation settles at 0) records its tokens under the key's limits.
   */
  observe(event: TurnEvent, keyId: string | undefined, ticket?: KeyTicket): void;
  /**
   * A compaction model call's usage: its tokens and cost go to the key (cost at `model`'s prices),
   * and its tokens count under the key's `tpm`.
   */
  chargeCompaction(keyId: string, model: string, usage: Usage): void;
  usage(keyId: string): Promise<KeyUsage | undefined>;
  /** Writes what is still unsaved. */
  close(): Promise<void>;
}

export interface KeyringOptions {
  config: KeelConfig;
  prices: PriceBook;
  /** Where the `keel_key_*` metrics go. */
  registry?: Registry;
  /** Clock ms; default `Date.now`. */
  now?: () => number;
  /**
   * Where owners and spend are kept when the sessions are in files; default
   * `<sessionsDir>/.keys`; `false`: memory only. With `storage.kind` `postgres` they are the
   * database's rows, shared by every gateway (a session's owner, each key's spend).
   */
  stateDir?: string | false;
  onSaveError?: (error: unknown) => void;
  /**
   * Where `rpm` and `tpm` are counted (keys `key:<id>`); default: with `storage.kind` `postgres`
   * the database's ledger, which every gateway shares (the limits hold across the cluster, by the
   * database's clock), else one in memory on `now`.
   */
  ledger?: BudgetLedger;
}

/** How long an admitted request's reservation waits for its call's end to be reconciled. */
const RESERVATION_TTL_MS = 120_000;

interface KeyState {
  config: ClientKeyConfig;
  limits: { rpm?: number; tpm?: number };
  /** Reservations not reconciled yet, oldest first: each call's end corrects its own. */
  reserved: Array<{ ticket: KeyTicket; reservation: BudgetReservation; at: number }>;
  requests: number;
  rejected: Record<Rejection, number>;
  tokens: { input: number; output: number };
  costUsd: number;
}

export async function createKeyring(options: KeyringOptions): Promise<Keyring> {
  const { config, prices } = options;
  const now = options.now ?? Date.now;
  // Over PostgreSQL every gateway counts each key's requests and tokens in the same rows.
  const limited = config.keys.some((key) => key.rpm !== undefined || key.tpm !== undefined);
  const storage = config.storage;
  const postgres = await loadPostgres(config);
  const shared =
    options.ledger === undefined && limited && storage.kind === 'postgres'
      ? requirePostgres(postgres).createPostgresBudgetLedger({
          connectionString: storage.url,
          maxConnections: 2,
          ...(storage.timeouts === undefined ? {} : { timeouts: storage.timeouts }),
        })
      : undefined;
  const ledger = options.ledger ?? shared ?? createBudgetLedger({ clock: { now } });
  const onError = options.onSaveError ?? (() => undefined);
  // Over PostgreSQL every gateway sees the same owners and adds to the same spend.
  const records =
    config.keys.length > 0 && storage.kind === 'postgres'
      ? requirePostgres(postgres).createPostgresKeyRecords({
          connectionString: storage.url,
          maxConnections: 2,
          ...(storage.timeouts === undefined ? {} : { timeouts: storage.timeouts }),
        })
      : undefined;
  let owners: SessionOwners;
  let spend: KeySpendStore;
  if (records !== undefined) {
    owners = openPostgresSessionOwners(records);
    spend = openPostgresSpendStore({ records, onError });
  } else {
    const stateDir =
      options.stateDir ?? (config.keys.length === 0 ? false : join(config.sessionsDir, '.keys'));
    owners = await openSessionOwners(
      stateDir === false ? {} : { file: join(stateDir, 'session-owners.jsonl') },
    );
    spend = await openFileSpendStore({
      file: stateDir === false ? undefined : join(stateDir, 'spend.json'),
      now,
      onError,
    });
  }

  const states = new Map<string, KeyState>();
  for (const key of config.keys) {
    states.set(key.id, {
      config: key,
      limits: {
        ...(key.rpm === undefined ? {} : { rpm: key.rpm }),
        ...(key.tpm === undefined ? {} : { tpm: key.tpm }),
      },
      reserved: [],
      requests: 0,
      rejected: { rpm: 0, tpm: 0, budget: 0 },
      tokens: { input: 0, output: 0 },
      costUsd: 0,
    });
  }
  const metrics = createKeyMetrics(options.registry, states, spend.spent);

  const admin: ClientIdentity = { keyId: undefined, admin: true, models: undefined };
  const lookup = createCredentialLookup<ClientIdentity>([
    ...(config.server.authToken === undefined
      ? []
      : [{ id: admin, secret: config.server.authToken }]),
    ...config.keys.map((key) => ({
      id: {
        keyId: key.id,
        admin: key.admin,
        models: key.models === undefined ? undefined : new Set(key.models),
      },
      secret: key.secret,
    })),
  ]);

  /** Tokens and cost go to the key's usage, spend and metrics. */
  const charge = (state: KeyState, input: number, output: number, cost: number) => {
    const keyId = state.config.id;
    state.tokens.input += input;
    state.tokens.output += output;
    state.costUsd += cost;
    spend.add(keyId, cost);
    metrics?.tokens.inc({ key: keyId, type: 'input' }, input);
    metrics?.tokens.inc({ key: keyId, type: 'output' }, output);
    metrics?.cost.inc({ key: keyId }, cost);
  };

  const reject = (state: KeyState, reason: Rejection, message: string, retryAfterMs?: number) => {
    state.rejected[reason] += 1;
    metrics?.rejections.inc({ key: state.config.id, reason });
    return {
      admitted: false as const,
      reason,
      message,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  };

  return {
    required: config.server.authToken !== undefined || config.keys.length > 0,
    keyIds: config.keys.map((key) => key.id),
    owners,
    identify: lookup,
    async admit(keyId, estimatedTokens) {
      const state = states.get(keyId);
      if (state === undefined) return { admitted: true };
      const caps = state.config.spendCapUsd;
      const reached = caps === undefined ? undefined : capReachedIn(await spend.spent(keyId), caps);
      if (reached !== undefined) {
        return reject(
          state,
          'budget',
          `budget_exceeded: key "${keyId}" reached its spend cap for this ${reached} (${caps?.[reached]} USD)`,
        );
      }
      let ticket: KeyTicket | undefined;
      if (state.limits.rpm !== undefined || state.limits.tpm !== undefined) {
        const decision = await ledger.reserve(`key:${keyId}`, state.limits, estimatedTokens);
        if (!decision.granted) {
          const limit = decision.limit === 'rpm' ? 'rpm' : 'tpm';
          return reject(
            state,
            limit,
            `Rate limit reached for key "${keyId}": ${state.limits[limit]} ${limit === 'rpm' ? 'requests' : 'tokens'} per minute`,
            decision.waitMs,
          );
        }
        const at = now();
        // A request that never reached a model (refused later, a repeat) keeps its estimate.
        while ((state.reserved[0]?.at ?? at) < at - RESERVATION_TTL_MS) state.reserved.shift();
        ticket = { keyId, sessionId: undefined };
        state.reserved.push({ ticket, reservation: decision.reservation, at });
      }
      state.requests += 1;
      metrics?.requests.inc({ key: keyId });
      return ticket === undefined ? { admitted: true } : { admitted: true, ticket };
    },
    observe(event, keyId, ticket) {
      if (event.type !== 'turn-end' || keyId === undefined) return;
      const state = states.get(keyId);
      if (state === undefined) return;
      let input = 0;
      let output = 0;
      let cost = 0;
      for (const attempt of event.outcome.attempts) {
        if (attempt.usage === undefined) continue;
        input += attempt.usage.inputTokens;
        output += attempt.usage.outputTokens;
        cost += attemptCost(attempt, prices) ?? 0;
      }
      // Its own request's reservation: the one given, else its session's oldest still open.
      const index = state.reserved.findIndex((open) =>
        ticket?.keyId === keyId
          ? open.ticket === ticket
          : open.ticket.sessionId === event.sessionId,
      );
      const [own] = index < 0 ? [] : state.reserved.splice(index, 1);
      if (own !== undefined) {
        ledger.reconcile(own.reservation, input + output).catch(onError);
      } else if (
        input + output > 0 &&
        (state.limits.rpm !== undefined || state.limits.tpm !== undefined)
      ) {
        // No reservation of its own here: another gateway admitted its message (and settled it at
        // 0 when this turn answered it there), so its tokens count under the key's tpm only here.
        ledger.record(`key:${keyId}`, state.limits, input + output).catch(onError);
      }
      // Messages folded into this turn (`steer`) sent no call of their own: their tokens are in
      // this turn's usage, so the session's next open reservations, one each, are settled at 0.
      for (let folded = event.outcome.steeredMessageIds?.length ?? 0; folded > 0; folded -= 1) {
        const next = state.reserved.findIndex((open) => open.ticket.sessionId === event.sessionId);
        if (next < 0) break;
        const [steered] = state.reserved.splice(next, 1);
        if (steered !== undefined) ledger.reconcile(steered.reservation, 0).catch(onError);
      }
      charge(state, input, output, cost);
    },
    chargeCompaction(keyId, model, usage) {
      const state = states.get(keyId);
      if (state === undefined) return;
      const modelPrices = prices.get(model);
      // A compaction's model calls are made for the key's session: their tokens count under its
      // `tpm` too (no request of their own: the turn that compacted was admitted already).
      if (state.limits.tpm !== undefined) {
        const used = usage.inputTokens + usage.outputTokens;
        ledger.record(`key:${keyId}`, state.limits, used).catch(onError);
      }
      charge(
        state,
        usage.inputTokens,
        usage.outputTokens,
        modelPrices === undefined ? 0 : costOf(usage, modelPrices),
      );
    },
    async usage(keyId) {
      const state = states.get(keyId);
      if (state === undefined) return undefined;
      const { rpm, tpm, spendCapUsd } = state.config;
      const left =
        rpm === undefined && tpm === undefined
          ? {}
          : await ledger.remaining(`key:${keyId}`, state.limits);
      return {
        key: keyId,
        requests: state.requests,
        rejected: { ...state.rejected },
        tokens: { ...state.tokens },
        costUsd: state.costUsd,
        remaining: {
          ...(left.rpm === undefined ? {} : { rpm: left.rpm }),
          ...(left.tpm === undefined ? {} : { tpm: left.tpm }),
        },
        spend: await spend.spent(keyId),
        limits: {
          ...(rpm === undefined ? {} : { rpm }),
          ...(tpm === undefined ? {} : { tpm }),
          ...(spendCapUsd === undefined ? {} : { spendCapUsd }),
        },
      };
    },
    async close() {
      await spend.flush();
      await Promise.all([shared?.close(), records?.close()]);
    },
  };
}
