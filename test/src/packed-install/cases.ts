import type { MockProvider } from '@keel/testing';
import type { WorkspacePackage } from '../support/workspace-packages';

/** What a case's input, checks and expectations may depend on, fresh for each run. */
export interface RunContext {
  mock: MockProvider;
  /** A model name no other run uses: the shared mock provider answers it from this run's script. */
  model: string;
  /** An empty folder of this run's own. */
  scratch: string;
}

/**
 * One packed install: the package's tarball, the tarballs of every `@keel/*` package it needs,
 * and `extras` (its optional peers, chosen) in an empty npm project, then a consumer script that
 * calls the package's main function, type-checked and run.
 */
export interface PackedInstallCase {
  title: string;
  packageName: string;
  /**
   * The consumer: files under `consumers/`, the entry first, which exports
   * `consume(input): Promise<report>`. Without it a generated consumer imports every runtime export
   * and reports their names (a new package is covered automatically; give it its own script to
   * call its main function).
   */
  files?: readonly string[];
  /** Registry packages installed beside the tarballs (optional peers); default none. */
  extras?: readonly string[];
  /**
   * Type packages the consumer's tsconfig loads globally (`types`); default none. The AI SDK's own
   * declarations need Node's (`Buffer`, `node:http`), as every AI SDK project has them.
   */
  types?: readonly string[];
  /** The project's node_modules must hold nothing but `@keel/*` packages. */
  zeroThirdParty?: boolean;
  /** Arranges the run (scripts the mock provider) and returns the consumer's input. */
  prepare?(context: RunContext): Record<string, unknown>;
  /** The report the consumer must return. */
  expected(context: RunContext): unknown;
  /** Further checks after the run (what the mock provider served). */
  verify?(context: RunContext): void;
}

const usage = { inputTokens: 11, outputTokens: 6 };
/**
 * The reply a consumer reads; `cache`: the prompt cache's counts the wire reports beside the
 * usage (the mock's Responses wire sends `cached_tokens: 0`, its Anthropic wire both counts).
 */
const reply = (text: string, cache: Record<string, number> = {}) => ({
  text,
  tail: [
    { type: 'usage', ...usage, ...cache },
    { type: 'finish', reason: 'stop' },
  ],
});
const ANTHROPIC_CACHE = { cacheReadTokens: 0, cacheWriteTokens: 0 };

function scriptReplies(context: RunContext, texts: readonly string[]): void {
  for (const text of texts) {
    context.mock.enqueue({
      behavior: { type: 'ok', text, usage },
      match: { model: context.model },
    });
  }
}

function missing(api: string, packageName: string) {
  return { api, name: 'MissingSdkError', packageName, namesInstall: true };
}

/** Requests the mock served for this run, as `api` names. */
function servedApis(context: RunContext): string[] {
  return context.mock.requests
    .filter((request) => request.model === context.model)
    .map((request) => request.api);
}

function transportWithOpenai(major: 6 | 7): PackedInstallCase {
  return {
    title: `@keel/transport with only openai ${major}`,
    packageName: '@keel/transport',
    files: ['transport-openai.ts', 'transport-stream.ts'],
    extras: [`openai@${major}`],
    prepare: (context) => {
      scriptReplies(context, ['Hello over chat.', 'Hello over responses.']);
      return { baseUrl: context.mock.openaiBaseUrl, model: context.model };
    },
    expected: () => ({
      chat: reply('Hello over chat.'),
      responses: reply('Hello over responses.', { cacheReadTokens: 0 }),
      anthropic: missing('anthropic-messages', '@anthropic-ai/sdk'),
    }),
    verify: (context) => {
      if (servedApis(context).join() !== 'openai-chat,openai-responses') {
        throw new Error(`the mock served ${servedApis(context).join()}`);
      }
    },
  };
}

/** The packages with a consumer of their own; any other published package gets the generated one. */
export const PACKED_INSTALL_CASES: readonly PackedInstallCase[] = [
  {
    title: '@keel/spec',
    packageName: '@keel/spec',
    files: ['spec.ts'],
    zeroThirdParty: true,
    expected: () => ({
      specVersion: 'v1',
      transcriptVersion: 2,
      events: [
        { type: 'text-delta', text: 'echo: hi' },
        { type: 'finish', reason: 'stop' },
      ],
    }),
  },
  {
    title: '@keel/error-classification',
    packageName: '@keel/error-classification',
    files: ['error-classification.ts'],
    zeroThirdParty: true,
    expected: () => ({
      kind: 'overloaded',
      retryable: false,
      retryAfterMs: 4000,
      actions: ['rotate_profile', 'fallback_model'],
      forgedKind: 'server_error',
      logLine: 'upstream said no\\nnext line',
      userMessage: 'The model is overloaded right now. Please try again in a moment.',
    }),
  },
  {
    title: '@keel/session-fence',
    packageName: '@keel/session-fence',
    files: ['session-fence.ts'],
    zeroThirdParty: true,
    prepare: (context) => ({ sessionsDir: context.scratch }),
    expected: () => ({
      messages: ['m1', 'm2', 'm3', 'm4'],
      takeover: 'session_takeover at prompt_reacquire',
    }),
  },
  transportWithOpenai(6),
  transportWithOpenai(7),
  {
    title: '@keel/transport with only @anthropic-ai/sdk',
    packageName: '@keel/transport',
    files: ['transport-anthropic.ts', 'transport-stream.ts'],
    extras: ['@anthropic-ai/sdk@1'],
    prepare: (context) => {
      scriptReplies(context, ['Hello, loaded.', 'Hello, given.']);
      return { baseUrl: context.mock.anthropicBaseUrl, model: context.model };
    },
    expected: () => ({
      loaded: reply('Hello, loaded.', ANTHROPIC_CACHE),
      given: reply('Hello, given.', ANTHROPIC_CACHE),
      openaiChat: missing('openai-chat', 'openai'),
      openaiResponses: missing('openai-responses', 'openai'),
    }),
    verify: (context) => {
      if (servedApis(context).join() !== 'anthropic-messages,anthropic-messages') {
        throw new Error(`the mock served ${servedApis(context).join()}`);
      }
    },
  },
  {
    title: '@keel/compaction',
    packageName: '@keel/compaction',
    files: ['compaction.ts'],
    zeroThirdParty: true,
    expected: () => ({
      status: 'compacted',
      producerId: 'bullets',
      firstKeptEntryId: 'm2',
      keepsIdentifier: true,
      appended: 'compaction',
    }),
  },
  {
    title: '@keel/provider-health',
    packageName: '@keel/provider-health',
    files: ['provider-health.ts'],
    zeroThirdParty: true,
    expected: () => ({
      permit: { allowed: false, reason: 'breaker-open' },
      row: { state: 'open', openUntil: 11_000 },
      changes: ['closed>open:timeout'],
      refused: 'HealthConfigError failureRatio',
    }),
  },
  {
    title: '@keel/orchestrator',
    packageName: '@keel/orchestrator',
    files: ['orchestrator.ts'],
    zeroThirdParty: true,
    expected: () => ({
      before: { allowed: true, probe: false },
      after: { allowed: false, reason: 'breaker-open' },
      changes: ['breaker-change'],
      requestCeiling: 39,
      model: { providerId: 'openai', model: 'gpt-fallback' },
      configError: 'OrchestratorConfigError',
    }),
  },
  {
    title: '@keel/ai-sdk with ai 7, @ai-sdk/anthropic and @ai-sdk/openai',
    packageName: '@keel/ai-sdk',
    files: ['ai-sdk.ts'],
    // `@types/json-schema`: `@ai-sdk/provider`'s declarations import `json-schema` without it.
    extras: [
      'ai@7',
      '@ai-sdk/anthropic@4',
      '@ai-sdk/openai@4',
      '@types/node@20',
      '@types/json-schema@7',
    ],
    types: ['node'],
    prepare: (context) => {
      context.mock.enqueue({
        behavior: { type: 'http-error', status: 529, errorType: 'overloaded_error' },
        match: { model: context.model },
        times: 4,
      });
      for (const text of ['Generated by the fallback.', 'Streamed by the fallback.']) {
        context.mock.enqueue({
          behavior: { type: 'ok', text },
          match: { model: `${context.model}-b` },
        });
      }
      return {
        anthropicBaseUrl: context.mock.anthropicBaseUrl,
        openaiBaseUrl: context.mock.openaiBaseUrl,
        model: context.model,
      };
    },
    expected: (context) => ({
      generated: 'Generated by the fallback.',
      modelId: `${context.model}-b`,
      streamed: 'Streamed by the fallback.',
      decisions: [
        'rotate_profile overloaded',
        'fallback_model overloaded',
        'rotate_profile overloaded',
        'fallback_model overloaded',
      ],
      configError: 'KeelModelConfigError',
    }),
    verify: (context) => {
      const keys = context.mock.requests
        .filter((request) => request.model === context.model)
        .map((request) => request.apiKey);
      if (keys.join() !== 'key-1,key-2,key-1,key-2')
        throw new Error(`the mock saw keys ${keys.join()}`);
    },
  },
  {
    // The gateway's declarations name Fastify's and Node's types, as every server program has them.
    title: '@keel/gateway (generated consumer: imports every export; Node types)',
    packageName: '@keel/gateway',
    extras: ['@types/node@20'],
    types: ['node'],
    expected: () => 'same as the workspace build',
  },
  {
    title: '@keel/testing (no vitest, no SDK)',
    packageName: '@keel/testing',
    files: ['testing.ts'],
    zeroThirdParty: true,
    expected: () => ({
      statuses: [529, 200],
      error: 'overloaded_error',
      content: [{ type: 'text', text: 'Hello from the mock.' }],
      served: ['anthropic-messages http-error', 'anthropic-messages ok'],
      openaiBaseUrl: true,
    }),
  },
];

/** The declared cases, plus a generated one for every published package that has none. */
export function casesFor(published: readonly WorkspacePackage[]): PackedInstallCase[] {
  const generated = published
    .filter((entry) => !PACKED_INSTALL_CASES.some((known) => known.packageName === entry.name))
    .map(
      (entry): PackedInstallCase => ({
        title: `${entry.name} (generated consumer: imports every export)`,
        packageName: entry.name,
        expected: () => 'same as the workspace build',
      }),
    );
  return [...PACKED_INSTALL_CASES, ...generated];
}
