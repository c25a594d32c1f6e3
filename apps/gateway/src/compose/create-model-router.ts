import { join } from 'node:path';
import { buildModelContext } from '@keel/orchestrator';
import type { ModelPort, ModelRouter, ModelTarget, SessionStorage } from '@keel/spec';
import { createFileBindingStore, createTransport } from '@keel/transport';
import type { ProviderConfig } from '../config/config-schema';
import type { ProviderSdks } from './prepare-providers';

export interface ModelRouterOptions {
  providers: readonly ProviderConfig[];
  /** The embedded demo model's base URL, when a provider uses `api: 'demo'`. */
  demoBaseUrl: string | undefined;
  sessionsDir: string;
  storage: SessionStorage;
  /** The SDKs loaded at start-up (`prepareProviders`): the transports never load their own. */
  sdks: ProviderSdks;
}

/** The profile ids of a provider as the orchestrator sees them (one `default` when it has no keys). */
export function profileIdsOf(provider: ProviderConfig): string[] {
  if ('profiles' in provider && provider.profiles !== undefined)
    return provider.profiles.map((p) => p.id);
  return ['default'];
}

/**
 * One model port per provider profile and model, made on first use and kept: keys are fixed per
 * SDK client. The SDKs never retry on their own (the orchestrator pins every call to
 * `maxRetries: 0`); claude-cli reseeds a fresh CLI session from the session's own transcript and
 * latest compaction summary.
 */
export function createModelRouter(options: ModelRouterOptions): ModelRouter {
  const byId = new Map(options.providers.map((provider) => [provider.id, provider]));
  const ports = new Map<string, ModelPort>();
  const bindings = createFileBindingStore({
    path: join(options.sessionsDir, 'claude-cli-bindings.json'),
  });

  const { openai, anthropic } = options.sdks;
  const openaiLoader = openai === undefined ? {} : { loadSdk: async () => openai };
  const anthropicLoader = anthropic === undefined ? {} : { loadSdk: async () => anthropic };

  function create(target: ModelTarget): ModelPort {
    const provider = byId.get(target.providerId);
    if (provider === undefined) throw new Error(`No provider "${target.providerId}" is configured`);
    const keyOf = () => {
      const profile =
        'profiles' in provider
          ? provider.profiles?.find((p) => p.id === target.profileId)
          : undefined;
      return profile?.apiKey ?? 'demo';
    };
    switch (provider.api) {
      case 'anthropic-messages':
      case 'openai-chat':
      case 'openai-responses': {
        const common = {
          provider: provider.id,
          apiKey: keyOf(),
          model: target.model,
          ...(provider.baseUrl === undefined ? {} : { baseUrl: provider.baseUrl }),
          ...(provider.maxTokens === undefined ? {} : { maxTokens: provider.maxTokens }),
        };
        return provider.api === 'anthropic-messages'
          ? createTransport({ api: provider.api, ...common, ...anthropicLoader })
          : createTransport({ api: provider.api, ...common, ...openaiLoader });
      }
      case 'demo':
        return createTransport({
          ...anthropicLoader,
          api: 'anthropic-messages',
          provider: provider.id,
          apiKey: keyOf(),
          model: target.model,
          baseUrl: options.demoBaseUrl ?? 'http://127.0.0.1:9',
          maxTokens: 1024,
        });
      case 'claude-cli':
        return createTransport({
          api: 'claude-cli',
          provider: provider.id,
          command: provider.command,
          model: target.model,
          bindings,
          ...(provider.cwd === undefined ? {} : { cwd: provider.cwd }),
          ...(provider.allowedTools === undefined ? {} : { allowedTools: provider.allowedTools }),
          ...(provider.env === undefined ? {} : { env: provider.env }),
          reseed: {
            async load({ sessionId, signal }) {
              if (sessionId === undefined) return undefined;
              const read = await options.storage.read(
                sessionId,
                signal === undefined ? {} : { signal },
              );
              const context = buildModelContext(read.entries);
              // The messages still to answer go to the CLI as its prompt, not as context.
              const prior = [...context.messages];
              while (prior.at(-1)?.role === 'user') prior.pop();
              return {
                ...(context.summary === undefined ? {} : { summary: context.summary }),
                messages: prior,
              };
            },
          },
        });
      default: {
        const unexpected: never = provider;
        throw new Error(`Unknown provider api ${JSON.stringify(unexpected)}`);
      }
    }
  }

  return {
    connect(target) {
      const key = `${target.providerId}\u0000${target.profileId}\u0000${target.model}`;
      let port = ports.get(key);
      if (port === undefined) {
        port = create(target);
        ports.set(key, port);
      }
      return port;
    },
  };
}
