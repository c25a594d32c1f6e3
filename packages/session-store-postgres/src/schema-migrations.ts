import {
  budgetPaceStatements,
  budgetSchemaStatements,
  budgetTokenPaceStatements,
} from './budget-schema';

/** One step of the schema: what it creates, in SQL, for a schema name already quoted. */
export interface SchemaMigration {
  version: number;
  description: string;
  statements: (schema: string) => string[];
}

/**
 * Every version of the schema, oldest first. A released step is never edited: a change is a new
 * step. Transcripts are stored as the exact JSON text of each entry (a `text` column, not
 * `jsonb`): the digest is over what is stored, `\u0000` in a tool's output survives (`jsonb`
 * refuses it), and a row is the line the file store would write.
 */
export const SCHEMA_MIGRATIONS: readonly SchemaMigration[] = [
  {
    version: 1,
    description: 'transcripts, entries, fencing counters and leases',
    statements: (s) => [
      `CREATE TABLE ${s}.transcripts (
        session_id text PRIMARY KEY,
        incarnation bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        format_version integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_seq bigint NOT NULL DEFAULT 0,
        last_digest text NOT NULL DEFAULT '',
        total_bytes bigint NOT NULL DEFAULT 0
      )`,
      `CREATE TABLE ${s}.transcript_entries (
        session_id text NOT NULL REFERENCES ${s}.transcripts (session_id),
        seq bigint NOT NULL CHECK (seq > 0),
        byte_offset bigint NOT NULL,
        entry text NOT NULL,
        digest text NOT NULL,
        kind text NOT NULL,
        role text,
        format_version integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (session_id, seq)
      )`,
      `CREATE INDEX transcript_entries_by_offset ON ${s}.transcript_entries (session_id, byte_offset)`,
      `CREATE INDEX transcript_entries_assistant ON ${s}.transcript_entries (session_id, seq)
        WHERE role = 'assistant'`,
      // Never deleted: a session's fencing token only grows, across releases and expiries.
      `CREATE TABLE ${s}.session_fences (
        session_id text PRIMARY KEY,
        token bigint NOT NULL CHECK (token >= 0)
      )`,
      `CREATE TABLE ${s}.session_leases (
        session_id text PRIMARY KEY REFERENCES ${s}.session_fences (session_id),
        token bigint NOT NULL,
        holder text NOT NULL,
        acquired_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`,
    ],
  },
  {
    version: 2,
    description: 'provider health: breakers and cooldowns',
    statements: (s) => [
      `CREATE TABLE ${s}.health_breakers (
        provider_id text NOT NULL,
        model text NOT NULL,
        state text NOT NULL CHECK (state IN ('closed', 'open', 'half-open')),
        open_until bigint NOT NULL DEFAULT 0,
        failed_probes integer NOT NULL DEFAULT 0,
        probe_until bigint NOT NULL DEFAULT 0,
        burst bigint[] NOT NULL DEFAULT '{}',
        PRIMARY KEY (provider_id, model)
      )`,
      `CREATE TABLE ${s}.health_cooldowns (
        provider_id text NOT NULL,
        profile_id text NOT NULL,
        model text NOT NULL,
        kind text NOT NULL,
        until_ms bigint NOT NULL,
        PRIMARY KEY (provider_id, profile_id, model)
      )`,
    ],
  },
  {
    version: 3,
    description: 'provider health: a sliding window of outcomes per breaker, in place of the burst',
    // The burst's timestamps are dropped, not converted: they only ever counted for 30 s.
    statements: (s) => [
      `ALTER TABLE ${s}.health_breakers
        DROP COLUMN burst,
        ADD COLUMN window_starts bigint[] NOT NULL DEFAULT '{}',
        ADD COLUMN window_failures integer[] NOT NULL DEFAULT '{}',
        ADD COLUMN window_successes integer[] NOT NULL DEFAULT '{}'`,
    ],
  },
  {
    version: 4,
    description: 'turn claims: one running turn per session across gateways',
    // A session's row is never deleted (a release only ends it), so its token only grows.
    statements: (s) => [
      `CREATE TABLE ${s}.turn_claims (
        session_id text PRIMARY KEY,
        token bigint NOT NULL,
        owner text NOT NULL,
        turn_id text NOT NULL,
        claimed_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`,
    ],
  },
  {
    version: 5,
    description: 'queued appends: user messages written for the running turn by other gateways',
    statements: (s) => [
      `CREATE TABLE ${s}.queued_appends (
        session_id text NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        before_state text NOT NULL,
        after_state text NOT NULL,
        queued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (session_id, id)
      )`,
    ],
  },
  {
    version: 6,
    description: 'budgets: requests and tokens per key in time slices, reserved by one function',
    statements: (s) => budgetSchemaStatements(s),
  },
  {
    version: 7,
    description: 'client keys: the key that owns each session, and spend per key and period',
    statements: (s) => [
      `CREATE TABLE ${s}.key_session_owners (
        session_id text PRIMARY KEY,
        key_id text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
      `CREATE TABLE ${s}.key_spend (
        key_id text NOT NULL,
        period text NOT NULL,
        usd double precision NOT NULL CHECK (usd >= 0),
        PRIMARY KEY (key_id, period)
      )`,
    ],
  },
  {
    version: 8,
    description: 'budgets: paced rpm (burst); a key lists its sessions by an index',
    statements: (s) => [
      ...budgetPaceStatements(s),
      `CREATE INDEX key_session_owners_by_key ON ${s}.key_session_owners (key_id)`,
    ],
  },
  {
    version: 9,
    description: 'budgets: paced tpm (tpmBurst), the token pace beside the request pace',
    statements: (s) => budgetTokenPaceStatements(s),
  },
];

/** The schema version this package writes and reads. */
export const SCHEMA_VERSION: number = SCHEMA_MIGRATIONS.at(-1)?.version ?? 0;
