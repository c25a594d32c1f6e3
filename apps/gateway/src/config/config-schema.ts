import { z } from 'zod';
import { checkKeys } from '../keys/check-keys';
import { keysSchema } from '../keys/keys-schema';
import { toolsSchema } from '../tools/tools-schema';
import { budgetsSchema, checkBudgets } from './budgets-schema';
import { compatSchema, routesSchema } from './compat-schema';
import { healthSchema, modelSettingsSchema } from './model-settings-schema';

const id = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"');
/** A model reference is named whole in its error: `"claude-x" is not "providerId/model"…`. */
const modelRef = z.string().regex(/^[^/\s]+\/\S+$/, {
  error: (issue) =>
    `${JSON.stringify(issue.input)} is not "providerId/model": put the id of a configured provider before the model name (e.g. "anthropic/claude-sonnet-5")`,
});
const milliseconds = z.number().int().min(0);

const profile = z.strictObject({ id, apiKey: z.string().min(1, 'must not be empty') });
const profiles = z
  .array(profile)
  .min(1, 'needs at least one profile')
  .refine(
    (list) => new Set(list.map((p) => p.id)).size === list.length,
    'profile ids must be unique',
  );

const sdkProvider = {
  id,
  baseUrl: z.url().optional(),
  profiles,
  /** Sent as `max_tokens` / `max_output_tokens`. */
  maxTokens: z.number().int().positive().optional(),
};

export const providerSchema = z.discriminatedUnion('api', [
  z.strictObject({ ...sdkProvider, api: z.literal('anthropic-messages') }),
  z.strictObject({ ...sdkProvider, api: z.literal('openai-chat') }),
  z.strictObject({ ...sdkProvider, api: z.literal('openai-responses') }),
  z.strictObject({
    id,
    api: z.literal('claude-cli'),
    command: z.string().min(1).default('claude'),
    cwd: z.string().optional(),
    allowedTools: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
  }),
  /** The embedded demo model from `@keel/testing`: offline, deterministic, with demo tools. */
  z.strictObject({ id, api: z.literal('demo'), profiles: profiles.optional() }),
]);

export const configSchema = z
  .strictObject({
    server: z
      .strictObject({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65_535).default(7420),
        /**
         * When set, every route but `/healthz` needs `Authorization: Bearer <token>`. Without it
         * the gateway binds to loopback only and answers only loopback `Host` names.
         */
        authToken: z.string().min(1, 'must not be empty').optional(),
        bodyLimitBytes: z.number().int().positive().default(1_048_576),
        console: z.boolean().default(true),
        /** How long a client may take to send a whole request (headers and body): else `408`. */
        requestTimeoutMs: z.number().int().positive().default(30_000),
        /** How long a client may take to send the request headers: else `408`. */
        headersTimeoutMs: z.number().int().positive().default(10_000),
      })
      .refine((server) => server.headersTimeoutMs <= server.requestTimeoutMs, {
        message: 'headersTimeoutMs must not be over requestTimeoutMs',
        path: ['headersTimeoutMs'],
      })
      .prefault({}),
    sessionsDir: z.string().min(1).default('.keel/sessions'),
    /** Client keys: who may call this gateway, with which models, limits and spend caps. */
    keys: keysSchema,
    providers: z
      .array(providerSchema)
      .min(1, 'needs at least one provider')
      .refine(
        (list) => new Set(list.map((p) => p.id)).size === list.length,
        'provider ids must be unique',
      ),
    models: z.strictObject({
      primary: modelRef,
      fallbacks: z.array(modelRef).default([]),
      /** Per model (`providerId/model`): window, max output, timeouts, prices. */
      settings: z
        .record(
          z.string().regex(/^[^/\s]+\/\S+$/, 'must be "providerId/model"'),
          modelSettingsSchema,
        )
        .default({}),
    }),
    /** Named candidate chains for the compatible endpoints (`model: "fast"`); `default` = `models`. */
    routes: routesSchema,
    compat: compatSchema,
    retry: z
      .strictObject({
        maxRetries: z.number().int().min(0).max(10).default(1),
        maxWaitMs: milliseconds.default(10_000),
        maxWaits: z.number().int().min(0).max(10).default(2),
        /** Backoff of `retry_same` when the provider gave no `retry-after`: base and cap. */
        baseDelayMs: milliseconds.default(500),
        maxDelayMs: milliseconds.default(8_000),
      })
      .prefault({}),
    turn: z
      .strictObject({
        maxSteps: z.number().int().positive().max(256).default(16),
        /** One tool call's bound: past it the model gets an error result. */
        toolTimeoutMs: z.number().int().positive().default(60_000),
        maxModelSwitches: z.number().int().min(0).max(16).default(2),
        timeoutMs: z.number().int().positive().default(600_000),
        /**
         * One model attempt's whole bound (the only clock of a non-streamed upstream call, which a
         * compatible request without `stream` makes): past it the attempt fails like a silent stream.
         */
        callTimeoutMs: z.number().int().positive().default(300_000),
        firstTokenTimeoutMs: z.number().int().positive().default(30_000),
        stallTimeoutMs: z.number().int().positive().default(30_000),
        lockTimeoutMs: z.number().int().positive().default(30_000),
        /** One reply's text at most (UTF-8 bytes): past it the turn ends `error`, nothing stored. */
        maxReplyBytes: z.number().int().positive().default(4_194_304),
        system: z.string().optional(),
      })
      .prefault({}),
    health: healthSchema,
    /** Provider budgets (rpm, tpm, tpd) per provider profile and model. */
    budgets: budgetsSchema,
    storage: z
      .discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('file'), fsync: z.boolean().default(true) }),
        z.strictObject({
          kind: z.literal('postgres'),
          url: z.string().min(1),
          /**
           * How long a session lease lives without its heartbeat (renewed every third of it), by
           * the database's clock: how soon another gateway may take the sessions of one that died
           * or froze. Default 10 000 ms.
           */
          leaseTtlMs: z.number().int().min(100).optional(),
          /**
           * This gateway's name among the gateways that share the database (in turn claims): stable
           * for the process, unique among them. Default `<hostname>:<pid>:<8 random hex digits>`.
           */
          gatewayId: z.string().min(1).max(200).optional(),
          /**
           * One running turn per session across every gateway (on by default): a message reaching a
           * gateway while another runs its session's turn is queued there and answered by that turn.
           * `ttlMs`: a claim's life without a heartbeat (by the database's clock; default
           * `leaseTtlMs`), how soon another gateway answers for one that died or froze. `pollMs`: how
           * soon a queued message looks for its answer when no notification came (default 200;
           * doubling each time, up to 8 × `pollMs`, while none comes).
           */
          turnClaims: z
            .strictObject({
              enabled: z.boolean().default(true),
              ttlMs: z.number().int().min(100).optional(),
              pollMs: z.number().int().positive().optional(),
            })
            .prefault({}),
          /**
           * Bounds on every wait on the database (a new connection, a query's answer, a statement
           * on the server; defaults 5 000, 15 000 and 10 000 ms): a database that is down or frozen
           * fails the turn with a `storage` error instead of hanging it. Keep them well under
           * `turn.timeoutMs`.
           */
          timeouts: z
            .strictObject({
              connectMs: z.number().int().positive().optional(),
              queryMs: z.number().int().positive().optional(),
              statementMs: z.number().int().positive().optional(),
            })
            .optional(),
        }),
      ])
      .prefault({ kind: 'file' }),
    queue: z.strictObject({ mode: z.enum(['followup', 'steer']).default('followup') }).prefault({}),
    /** The in-memory event log and its live followers (`/events?follow=1`). */
    events: z
      .strictObject({
        /** Bytes of recent events kept in all; the least recently active sessions go first. */
        maxBytes: z.number().int().positive().default(4_194_304),
        /** Bytes of recent events kept per session (and per compatible call). */
        perSessionBytes: z.number().int().positive().default(1_048_576),
        /** How long an event is kept; a session idle that long is forgotten. */
        maxAgeMs: z.number().int().positive().default(3_600_000),
        /** Event streams followed at once; past it a new one is refused with `429`. */
        maxFollowers: z.number().int().min(0).default(256),
        /** Bytes waiting for one follower that does not read: past it events are dropped (a `gap`). */
        followerBufferBytes: z.number().int().positive().default(262_144),
      })
      .prefault({}),
    /** Tools offered to the model: built-in demo tools and MCP servers' (`src/tools/tools-schema.ts`). */
    tools: toolsSchema,
    /** Plugin modules (package names, or paths relative to the config file), in load order. */
    plugins: z
      .array(
        z.union([
          z.string().min(1),
          z.strictObject({ module: z.string().min(1), options: z.unknown().optional() }),
        ]),
      )
      .default([]),
    compaction: z
      .strictObject({
        providers: z.array(z.string().min(1)).default([]),
        /** The summarizer's model; default the primary. */
        model: modelRef.optional(),
        contextWindowTokens: z.number().int().positive().default(200_000),
        reserveTokens: z.number().int().positive().default(16_384),
        keepRecentTokens: z.number().int().positive().default(20_000),
      })
      .prefault({}),
    shutdown: z.strictObject({ graceMs: milliseconds.default(10_000) }).prefault({}),
    logging: z
      .strictObject({
        level: z
          .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
          .default('info'),
      })
      .prefault({}),
  })
  .superRefine((config, context) => {
    const providers = new Map(config.providers.map((provider) => [provider.id, provider]));
    const check = (reference: string, path: Array<string | number>) => {
      const slash = reference.indexOf('/');
      // Without a provider at all, the reference's own rule has named it.
      if (slash <= 0) return;
      const providerId = reference.slice(0, slash);
      if (!providers.has(providerId)) {
        context.addIssue({
          code: 'custom',
          path,
          message: `${JSON.stringify(reference)} names provider "${providerId}", which is not in providers (${[...providers.keys()].map((id) => `"${id}"`).join(', ')})`,
        });
      }
    };
    check(config.models.primary, ['models', 'primary']);
    config.models.fallbacks.forEach((reference, index) => {
      check(reference, ['models', 'fallbacks', index]);
    });
    for (const reference of Object.keys(config.models.settings)) {
      check(reference, ['models', 'settings', reference]);
    }
    if (config.compaction.model !== undefined)
      check(config.compaction.model, ['compaction', 'model']);
    checkKeys(config, context);
    checkBudgets(config, context);
    for (const [name, route] of Object.entries(config.routes)) {
      check(route.primary, ['routes', name, 'primary']);
      route.fallbacks.forEach((reference, index) => {
        check(reference, ['routes', name, 'fallbacks', index]);
      });
    }
  });

/** A configuration as written (before defaults). */
export type KeelConfigInput = z.input<typeof configSchema>;
/** A validated configuration, every default applied. */
export type KeelConfig = z.output<typeof configSchema>;
export type ProviderConfig = KeelConfig['providers'][number];
