/**
 * Row 24: provider budgets (issue 24). What a budget check costs per request — in memory
 * (`createBudgetLedger`) and over PostgreSQL (`createPostgresBudgetLedger`: database round trips
 * per check, counted at the pool, and its latency) — and how well three gateways hold one `rpm`
 * together: three ledgers over one database (Keel) beside three in-memory ledgers, one per gateway
 * (a per-pod budget, LiteLLM's behaviour), each hammered by its own clients.
 *
 * Then the same at the upstream, with the real minute: three gateway processes over one database
 * (their budget shared: the sliding window alone — `burst` = rpm — then paced by default, 3 s worth
 * back to back) and three with a
 * budget each, hammered through their HTTP API, the model requests' arrival times recorded at a
 * proxy in front of the mock provider. Over the database, each grant's time by the database's clock
 * is recorded too (a trigger on the budget's rows), so the delay from grant to arrival is measured.
 *
 * Run: `pnpm build && pnpm bench budget`. With `DATABASE_URL` set it uses that server (a database
 * it may create schemas in); else it starts a throwaway one (@keel/postgres-test-server).
 */
import { type BudgetLedger, createBudgetLedger } from '@keel/orchestrator';
import { createDatabase, startPostgresServer } from '@keel/postgres-test-server';
import {
  createPostgresBudgetLedger,
  createPostgresSessionStorage,
  type PostgresPool,
  type PostgresSessionStorage,
} from '@keel/session-store-postgres';
import { createMockProvider } from '@keel/testing';
import { pick, SMOKE } from './lib/env';
import { type KeelGateway, startKeelGateway } from './lib/keel-gateway';
import { startRecordingUpstream } from './lib/recording-upstream';
import { publish } from './lib/result';
import { median } from './lib/stats';

const MEMORY_CHECKS = pick(50_000, 2_000);
const MEMORY_ROUNDS = pick(5, 1);
const PG_CHECKS = pick(2_000, 50);
const RPM = 60;
const MINUTE_MS = pick(3_000, 400);
const HAMMER_MS = pick(MINUTE_MS * 4, MINUTE_MS * 2);
const GATEWAYS = 3;
const CLIENTS_PER_GATEWAY = 4;
/** At the upstream: the real minute, hammered long enough for every 60 s window to be full. */
const UPSTREAM_MINUTE_MS = pick(60_000, 2_000);
const UPSTREAM_SHARED_MS = pick(150_000, 5_000);
const UPSTREAM_OWN_MS = pick(90_000, 4_000);
const UPSTREAM_CLIENTS = 12;

/** A pool that counts the statements sent through it. */
function counting(pool: PostgresPool): PostgresPool & { queries: number } {
  const counted = {
    queries: 0,
    connect: () => pool.connect(),
    end: () => pool.end(),
    query(text: string, values?: unknown[]) {
      counted.queries += 1;
      return pool.query(text, values);
    },
  };
  return counted;
}

/** Microseconds per check (a reserve and its reconcile) in memory, over 100 keys. */
async function memoryRound(): Promise<number> {
  const ledger = createBudgetLedger();
  const limits = { rpm: 1e9, tpm: 1e12, tpd: 1e13 };
  const started = performance.now();
  for (let index = 0; index < MEMORY_CHECKS; index += 1) {
    const decision = await ledger.reserve(`openai/gpt-demo#k${index % 100}`, limits, 1_200);
    if (decision.granted) await ledger.reconcile(decision.reservation, 900);
  }
  return ((performance.now() - started) * 1000) / MEMORY_CHECKS;
}

/** The most events in any span of `windowMs`. */
function busiest(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && (sorted[end] as number) < (sorted[start] as number) + windowMs)
      end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

/** Every gateway's clients reserve as fast as they can; the times of the grants. */
async function hammer(ledgers: readonly BudgetLedger[]): Promise<number[]> {
  const granted: number[] = [];
  const until = performance.now() + HAMMER_MS;
  await Promise.all(
    ledgers.flatMap((ledger) =>
      Array.from({ length: CLIENTS_PER_GATEWAY }, async () => {
        while (performance.now() < until) {
          const decision = await ledger.reserve('openai/gpt-demo#main', { rpm: RPM }, 0);
          if (decision.granted) granted.push(performance.now());
          else await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }),
    ),
  );
  return granted;
}

interface UpstreamRun {
  /** Model requests that reached the upstream. */
  arrivals: number;
  /** Over the database: grants by its clock, their busiest window, and grant → arrival delays. */
  grants?: { count: number; busiest: number; delay: DelayStats };
  /** The most that reached it in any window of the budget's minute. */
  busiest: number;
  /** Answers to the clients: replies, and the gateways' own 429s. */
  replies: number;
  refused: number;
}

interface DelayStats {
  p50: number;
  p95: number;
  max: number;
  /** p95 - p5: how much the delay varies, what lets a window's worth spill into the next. */
  spread: number;
}

/**
 * The delay from grant to arrival, pairing the k-th grant with the k-th arrival (both in time
 * order; requests of one budget leave in about the order they were granted). Wall-clock ms both.
 */
function delays(grants: readonly number[], arrivals: readonly number[]): DelayStats {
  const a = [...grants].sort((x, y) => x - y);
  const b = [...arrivals].sort((x, y) => x - y);
  const pairs = Math.min(a.length, b.length);
  const delay = Array.from({ length: pairs }, (_, k) => (b[k] as number) - (a[k] as number)).sort(
    (x, y) => x - y,
  );
  const at = (q: number) => delay[Math.min(pairs - 1, Math.floor(q * pairs))] ?? 0;
  return { p50: at(0.5), p95: at(0.95), max: delay.at(-1) ?? 0, spread: at(0.95) - at(0.05) };
}

/** Logs each grant of the schema `keel`'s budget rows by the database's clock (wall-clock ms). */
async function recordGrants(pool: PostgresPool): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS keel.bench_granted (key text, at_ms bigint)`);
  await pool.query(`CREATE OR REPLACE FUNCTION keel.bench_granted_log() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.span = 'm' AND (TG_OP = 'INSERT' OR NEW.requests > OLD.requests) THEN
        INSERT INTO keel.bench_granted VALUES (NEW.key,
          floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      END IF;
      RETURN NEW;
    END $$`);
  await pool.query(`DROP TRIGGER IF EXISTS bench_granted ON keel.budget_slices`);
  await pool.query(`CREATE TRIGGER bench_granted AFTER INSERT OR UPDATE ON keel.budget_slices
    FOR EACH ROW EXECUTE FUNCTION keel.bench_granted_log()`);
}

/**
 * Three gateway processes, one provider budget of `RPM` each (shared over PostgreSQL when `url` is
 * given, else each its own in memory; paced by default, `burst` = rpm the window alone), hammered by clients spread over
 * them for `hammerMs`.
 */
async function hammerGateways(
  url: string | undefined,
  hammerMs: number,
  burst?: number,
): Promise<UpstreamRun> {
  const mock = await createMockProvider();
  const upstream = await startRecordingUpstream(mock.openaiBaseUrl);
  const model = `hammer-${process.pid}-${url === undefined ? 'own' : burst === undefined ? 'paced' : 'shared'}`;
  const config = {
    server: { host: '127.0.0.1', port: 0, console: false },
    sessionsDir: 'sessions',
    providers: [
      {
        id: 'co',
        api: 'openai-chat',
        baseUrl: upstream.baseUrl,
        profiles: [{ id: 'main', apiKey: 'sk-hammer' }],
      },
    ],
    models: { primary: `co/${model}` },
    retry: { maxRetries: 0, maxWaitMs: 0 },
    storage: url === undefined ? { kind: 'file' } : { kind: 'postgres', url },
    budgets: {
      limits: { [`co/${model}`]: { rpm: RPM, ...(burst === undefined ? {} : { burst }) } },
      minuteMs: UPSTREAM_MINUTE_MS,
    },
    logging: { level: 'warn' },
  };
  const gateways: KeelGateway[] = [];
  let replies = 0;
  let refused = 0;
  try {
    for (let index = 0; index < GATEWAYS; index += 1) gateways.push(await startKeelGateway(config));
    if (url !== undefined) {
      await fetch(`${(gateways[0] as KeelGateway).url}/v1/providers/health`); // the migration
      await recordGrants(poolOf());
    }
    const body = JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'go' }] });
    const until = performance.now() + hammerMs;
    await Promise.all(
      Array.from({ length: UPSTREAM_CLIENTS }, async (_, client) => {
        for (let sent = 0; performance.now() < until; sent += 1) {
          const gateway = gateways[(client + sent) % gateways.length] as KeelGateway;
          const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          });
          await answer.arrayBuffer();
          if (answer.status === 200) replies += 1;
          else refused += 1;
          if (answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }),
    );
  } finally {
    await Promise.allSettled(gateways.map((gateway) => gateway.close()));
    await upstream.close();
    await mock.close();
  }
  const { arrivals } = upstream;
  const run: UpstreamRun = {
    arrivals: arrivals.length,
    busiest: busiest(arrivals, UPSTREAM_MINUTE_MS),
    replies,
    refused,
  };
  if (url !== undefined) {
    const { rows } = await poolOf().query('SELECT at_ms FROM keel.bench_granted WHERE key = $1', [
      `co/${model}#main`,
    ]);
    const granted = rows.map((row) => Number(row['at_ms']));
    const wall = arrivals.map((at) => performance.timeOrigin + at);
    run.grants = {
      count: granted.length,
      busiest: busiest(granted, UPSTREAM_MINUTE_MS),
      delay: delays(granted, wall),
    };
  }
  return run;
}

const memory: number[] = [];
for (let round = 0; round < MEMORY_ROUNDS; round += 1) memory.push(await memoryRound());
const memoryUs = median(memory);

const external = process.env['DATABASE_URL'];
const server = external ? undefined : await startPostgresServer({ durable: true });
const database = server ? await createDatabase(server.adminUrl, 'bench') : undefined;
const url = external ?? database?.url ?? '';
const schema = `bench_budget_${process.pid}`;
// Each "gateway" has a pool of its own (a session store's, which opens one per connection string).
const stores: PostgresSessionStorage[] = [];
const poolOf = (): PostgresPool => {
  const store = createPostgresSessionStorage({ connectionString: url, schema, maxConnections: 4 });
  stores.push(store);
  return store.pool;
};
let roundTrips = 0;
let pgMs = 0;
let shared = { granted: 0, busiest: 0 };
let perGateway = { granted: 0, busiest: 0 };
let upstreamShared: UpstreamRun | undefined;
let upstreamPaced: UpstreamRun | undefined;
let upstreamOwn: UpstreamRun | undefined;
try {
  const pool = counting(poolOf());
  const ledger = createPostgresBudgetLedger({ pool, schema });
  await ledger.remaining('warm', { rpm: 1 }); // the migration, once
  const latencies: number[] = [];
  pool.queries = 0;
  for (let index = 0; index < PG_CHECKS; index += 1) {
    const started = performance.now();
    await ledger.reserve(`openai/gpt-demo#k${index % 20}`, { rpm: 1e9, tpm: 1e12 }, 1_200);
    latencies.push(performance.now() - started);
  }
  roundTrips = pool.queries / PG_CHECKS;
  pgMs = median(latencies);

  const rows = Array.from({ length: GATEWAYS }, () =>
    createPostgresBudgetLedger({ pool: poolOf(), schema, minuteMs: MINUTE_MS }),
  );
  const sharedTimes = await hammer(rows);
  shared = { granted: sharedTimes.length, busiest: busiest(sharedTimes, MINUTE_MS) };
  const memories = Array.from({ length: GATEWAYS }, () =>
    createBudgetLedger({ minuteMs: MINUTE_MS }),
  );
  const ownTimes = await hammer(memories);
  perGateway = { granted: ownTimes.length, busiest: busiest(ownTimes, MINUTE_MS) };

  upstreamShared = await hammerGateways(url, UPSTREAM_SHARED_MS, RPM);
  upstreamPaced = await hammerGateways(url, UPSTREAM_SHARED_MS);
  upstreamOwn = await hammerGateways(undefined, UPSTREAM_OWN_MS);
} finally {
  await Promise.allSettled(stores.map((store) => store.close()));
  await server?.stop();
}

const times = (value: number) => `${(value / RPM).toFixed(2)}×`;
const upstreamRow = (name: string, run: UpstreamRun | undefined, ms: number) => [
  name,
  `${ms / 1000} s`,
  String(run?.arrivals ?? 0),
  String(run?.busiest ?? 0),
  times(run?.busiest ?? 0),
  `${run?.replies ?? 0} / ${run?.refused ?? 0}`,
  run?.grants === undefined ? '–' : `${run.grants.count} / ${run.grants.busiest}`,
  run?.grants === undefined
    ? '–'
    : `${ms1(run.grants.delay.p50)} / ${ms1(run.grants.delay.p95)} / ${ms1(run.grants.delay.max)} (spread ${ms1(run.grants.delay.spread)})`,
];
const ms1 = (value: number) => `${Math.round(value)} ms`;
const upstreamBusiest = upstreamPaced?.busiest ?? 0;
await publish({
  order: 24,
  title: '24. Provider budgets',
  method: `Check cost: ${MEMORY_CHECKS} reserve + reconcile pairs over 100 keys on one in-memory ledger (median of ${MEMORY_ROUNDS} rounds), and ${PG_CHECKS} reserves over 20 keys on the PostgreSQL ledger (${external ? 'DATABASE_URL' : 'a local server, fsync on'}), the statements counted at the pool. Accuracy: ${GATEWAYS} gateways' ledgers, ${CLIENTS_PER_GATEWAY} clients each reserving as fast as they can for ${HAMMER_MS / 1000} s against one budget of rpm ${RPM}, the minute scaled to ${MINUTE_MS / 1000} s (\`minuteMs\`); the busiest window of grants. In process, ledgers only. At the upstream: ${GATEWAYS} gateway processes (the built CLI) with one budget \`rpm: ${RPM}\` for their one model, the minute ${UPSTREAM_MINUTE_MS / 1000} s, ${UPSTREAM_CLIENTS} clients sending \`POST /v1/chat/completions\` round-robin over the gateways as fast as they are answered (25 ms pause after a 429); each model request's arrival time recorded at a loopback proxy in front of the mock provider; the busiest ${UPSTREAM_MINUTE_MS / 1000} s window of arrivals.`,
  baseline:
    'a per-gateway budget: the same three gateways, each with its own in-memory ledger (what a per-pod limit does: LiteLLM checks token limits per pod, #27736), in the same run.',
  tables: [
    {
      table: {
        columns: ['measure', 'value'],
        rows: [
          ['in memory: per check (reserve + reconcile)', `${memoryUs.toFixed(2)} µs`],
          ['PostgreSQL: round trips per check', roundTrips.toFixed(2)],
          ['PostgreSQL: per check (median)', `${pgMs.toFixed(2)} ms`],
        ],
      },
    },
    {
      table: {
        columns: ['budget', 'grants', `busiest ${MINUTE_MS / 1000} s window`, 'of the rpm'],
        rows: [
          [
            'shared (PostgreSQL, Keel)',
            String(shared.granted),
            String(shared.busiest),
            times(shared.busiest),
          ],
          [
            'per gateway (in memory each)',
            String(perGateway.granted),
            String(perGateway.busiest),
            times(perGateway.busiest),
          ],
        ],
      },
    },
    {
      table: {
        columns: [
          'at the upstream, 3 gateway processes',
          'hammered',
          'arrivals',
          `busiest ${UPSTREAM_MINUTE_MS / 1000} s window`,
          'of the rpm',
          'clients: replies / 429s',
          `grants by the database clock / busiest ${UPSTREAM_MINUTE_MS / 1000} s window`,
          'grant → arrival: p50 / p95 / max',
        ],
        rows: [
          upstreamRow(
            'shared budget (PostgreSQL), window only (burst = rpm)',
            upstreamShared,
            UPSTREAM_SHARED_MS,
          ),
          upstreamRow(
            'shared budget (PostgreSQL), paced by default (burst 3, Keel)',
            upstreamPaced,
            UPSTREAM_SHARED_MS,
          ),
          upstreamRow('a budget per gateway (in memory each)', upstreamOwn, UPSTREAM_OWN_MS),
        ],
      },
    },
  ],
  targets: [
    {
      name: 'budget check in memory',
      goal: '≤ 0.1 ms per request',
      measured: `${(memoryUs / 1000).toFixed(4)} ms`,
      met: memoryUs <= 100,
    },
    {
      name: 'database round trips per check over PostgreSQL',
      goal: '≤ 1',
      measured: roundTrips.toFixed(2),
      met: roundTrips <= 1,
    },
    {
      name: `${GATEWAYS} gateways, one rpm: the most granted in any window`,
      goal: 'within 5 % of the rpm',
      measured: `${shared.busiest} of ${RPM} (per-gateway budgets: ${perGateway.busiest})`,
      met: shared.busiest <= RPM * 1.05,
      why: 'met only when the budget was also used: the shared row should come close to the rpm, the per-gateway row shows the 3× a per-pod budget lets through',
    },
    {
      name: `${GATEWAYS} gateway processes, one rpm: model requests reaching the upstream in any ${UPSTREAM_MINUTE_MS / 1000} s window`,
      goal: 'at most the rpm, within 5 %',
      measured: `${upstreamBusiest} of ${RPM} paced by default, burst 3 (window only: ${upstreamShared?.busiest ?? 0}; a budget per gateway: ${upstreamOwn?.busiest ?? 0})`,
      met: upstreamBusiest <= RPM * 1.05 && upstreamBusiest > 0,
    },
  ],
  notes: [
    'A shared check is one call of the `budget_reserve` function: it takes a per-key transaction lock, drops slices that left the window and counts the request, so its latency is one round trip plus the lock queue of that key.',
    "Grants are timed when the answer reaches its client, after the lock queue and the event loop: over the whole run the shared budget granted exactly rpm per window on average, and what a busiest window holds above rpm is answers that arrived late, not more granted by the database's clock (test/src/budgets-multi-gateway.test.ts counts grants by the database clock, through a trigger).",
    "At the upstream the window counts arrivals, not grants: a request reaches the provider some time after its reservation was granted (its gateway's event loop, the HTTP client, the proxy). Measured here: each grant's time by the database's clock (a trigger on the budget's rows) against the arrival times at the proxy, the k-th grant paired with the k-th arrival (same machine, wall-clock ms). With the window alone, a window's worth frees at once and is granted at once; when the delay varies, a late batch and the next one on time land in one minute at the provider. Paced (the default for a provider budget: `burst` = ceil(rpm / 20), 3 at 60 rpm, then one every minute / rpm, besides the window), the excess is bounded by the burst and the requests granted within the delay's spread.",
    ...(SMOKE ? ['Smoke run: tiny sizes, not a measurement.'] : []),
  ],
});
