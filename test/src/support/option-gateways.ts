/**
 * The set-up the `gateway-options-*` tests share: one mock provider, and the built gateway started
 * on it with one `anthropic-messages` provider and the option under test. Everything started is
 * stopped, and its folder removed, after the calling file's tests.
 */
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './gateway-process';

export interface OptionGatewayOptions {
  /** The provider's id; its key is `sk-keeltest-<id>`. */
  providerId: string;
  models: { primary: string; fallbacks?: string[] };
  /** The rest of `keel.config.json`: the option under test and what it needs (wins over defaults). */
  config?: Record<string, unknown>;
}

export interface OptionGateways {
  /** The mock provider every gateway calls (created before the file's tests). */
  readonly mock: MockProvider;
  /** A gateway with sessions in its own `sessions/` folder unless `config.sessionsDir` says. */
  start(options: OptionGatewayOptions): Promise<GatewayProcess>;
}

export function useOptionGateways(): OptionGateways {
  let mock: MockProvider | undefined;
  const started: GatewayProcess[] = [];
  beforeAll(async () => {
    mock = await createMockProvider();
  });
  afterAll(async () => {
    for (const gateway of started.splice(0)) {
      await gateway.stop();
      await removeDir(gateway.dir);
    }
    await mock?.close();
  });
  const provider = (): MockProvider => {
    if (mock === undefined) throw new Error('the mock provider starts before the tests');
    return mock;
  };
  return {
    get mock() {
      return provider();
    },
    async start({ providerId, models, config = {} }) {
      const gateway = await startGateway({
        config: {
          sessionsDir: 'sessions',
          providers: [
            {
              id: providerId,
              api: 'anthropic-messages',
              baseUrl: provider().anthropicBaseUrl,
              profiles: [{ id: 'main', apiKey: `sk-keeltest-${providerId}` }],
            },
          ],
          models,
          ...config,
        },
      });
      started.push(gateway);
      return gateway;
    },
  };
}
