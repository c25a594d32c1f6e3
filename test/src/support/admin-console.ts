/**
 * The set-up the console views' tests share (keys, budgets): a mock provider, the built gateway on
 * it with an admin token, one `anthropic-messages` provider and the config the view needs, headless
 * Chromium, and the traffic the view should show. Everything is closed after the calling file.
 */
import { createMockProvider, type MockProvider } from '@keel/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type ConsoleBrowser, launchConsoleBrowser } from './console-browser';
import { type GatewayProcess, removeDir, startGateway } from './gateway-process';

export interface AdminConsoleOptions {
  /** `server.authToken`: the console's login and the API's bearer token. */
  adminToken: string;
  /** The provider's id; its key is `sk-<id>`. */
  providerId: string;
  /** The rest of `keel.config.json`: models, and what the view shows (keys, budgets). */
  config: Record<string, unknown>;
  /** Runs once everything started: the requests the view should show. */
  traffic(gateway: GatewayProcess): Promise<void>;
}

export interface AdminConsole {
  readonly mock: MockProvider;
  readonly gateway: GatewayProcess;
  /** A new tab on `/console<hash>`, logged in with the admin token. */
  open(hash: string): Promise<Page>;
}

export function useAdminConsole(options: AdminConsoleOptions): AdminConsole {
  let mock: MockProvider | undefined;
  let gateway: GatewayProcess | undefined;
  let browser: ConsoleBrowser | undefined;
  beforeAll(async () => {
    mock = await createMockProvider();
    gateway = await startGateway({
      config: {
        server: { authToken: options.adminToken },
        sessionsDir: 'sessions',
        providers: [
          {
            id: options.providerId,
            api: 'anthropic-messages',
            baseUrl: mock.anthropicBaseUrl,
            profiles: [{ id: 'main', apiKey: `sk-${options.providerId}` }],
          },
        ],
        ...options.config,
      },
    });
    browser = await launchConsoleBrowser();
    await options.traffic(gateway);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await mock?.close();
    if (gateway !== undefined) await removeDir(gateway.dir);
  }, 60_000);
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the admin console starts before the tests');
    return value;
  };
  return {
    get mock() {
      return started(mock);
    },
    get gateway() {
      return started(gateway);
    },
    async open(hash) {
      const page = await started(browser).newPage();
      await page.goto(`${started(gateway).url}/console${hash}`);
      await page.fill('input[name="token"]', options.adminToken);
      await page.click('button[type="submit"]');
      return page;
    },
  };
}
