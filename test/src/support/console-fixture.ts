import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import type { Page } from 'playwright-core';
import { type ConsoleBrowser, launchConsoleBrowser } from './console-browser';
import { type GatewayProcess, removeDir, startGateway } from './gateway-process';

/** What a console test runs against: the built gateway, the mock provider, headless Chromium. */
export interface ConsoleFixture {
  readonly provider: MockProvider;
  readonly gateway: GatewayProcess;
  readonly browser: ConsoleBrowser;
  readonly sessionsDir: string;
  /** A new tab on `/console<hash>`, recording dialogs and page errors. */
  open(hash?: string, options?: { token?: string }): Promise<ConsolePage>;
  /** `Authorization` headers for the API, when the gateway has a token. */
  readonly headers: Record<string, string>;
  /** Makes the session's next turns start on `model` (`providerId/model`). */
  selectModel(sessionId: string, model: string): Promise<void>;
  close(): Promise<void>;
}

export interface ConsolePage {
  readonly page: Page;
  /** Messages of every `alert` / `confirm` / `prompt` the page opened (each is dismissed). */
  readonly dialogs: string[];
  readonly pageErrors: string[];
}

/** Models a console test may select for its session, to scope its scripted answers. */
export const CONSOLE_TEST_MODELS = [
  'mock/overloaded-1',
  'backup/limited-1',
  'mock/slow-1',
  'mock/flaky-1',
  'mock/cooling-1',
  'mock/probe-1',
  'mock/usage-1',
];

/**
 * The gateway under test has two providers on one mock provider: `mock` with two auth profiles
 * (`key-a`, `key-b`) and `backup` with one (`main`); the chain is `mock/claude-main`, then
 * `backup/claude-backup`. Tests scope their scripted answers by model name: each test selects a
 * model of its own for its session (a live switch), so breakers and scripts never cross tests.
 */
export async function startConsoleFixture(
  options: { authToken?: string; console?: boolean } = {},
): Promise<ConsoleFixture> {
  const provider = await createMockProvider();
  const dir = await mkdtemp(join(tmpdir(), 'keel-console-'));
  const sessionsDir = join(dir, 'sessions');
  const gateway = await startGateway({
    dir,
    config: {
      server: {
        ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
        ...(options.console === undefined ? {} : { console: options.console }),
      },
      sessionsDir,
      providers: [
        {
          id: 'mock',
          api: 'anthropic-messages',
          baseUrl: provider.anthropicBaseUrl,
          profiles: [
            { id: 'key-a', apiKey: 'sk-mock-a' },
            { id: 'key-b', apiKey: 'sk-mock-b' },
          ],
        },
        {
          id: 'backup',
          api: 'anthropic-messages',
          baseUrl: provider.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-backup' }],
        },
      ],
      models: {
        primary: 'mock/claude-main',
        fallbacks: ['backup/claude-backup'],
        // The models tests select for their sessions (only configured models may be selected).
        settings: Object.fromEntries(CONSOLE_TEST_MODELS.map((model) => [model, {}])),
      },
      shutdown: { graceMs: 1000 },
    },
  });
  let browser: ConsoleBrowser;
  try {
    browser = await launchConsoleBrowser();
  } catch (error) {
    await gateway.stop();
    await provider.close();
    throw error;
  }
  const headers: Record<string, string> =
    options.authToken === undefined ? {} : { authorization: `Bearer ${options.authToken}` };

  return {
    provider,
    gateway,
    browser,
    sessionsDir,
    headers,
    async open(hash = '#/', openOptions = {}) {
      const page = await browser.newPage();
      const dialogs: string[] = [];
      const pageErrors: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      page.on('pageerror', (error) => pageErrors.push(error.message));
      if (openOptions.token !== undefined) {
        // Entered once in this tab, as an operator would; kept in the tab's session storage.
        await page.goto(`${gateway.url}/console`);
        await page.fill('input[name="token"]', openOptions.token);
        await page.click('button[type="submit"]');
        await page.waitForSelector('[data-stream="live"]');
        if (hash !== '#/') await page.goto(`${gateway.url}/console${hash}`);
      } else {
        await page.goto(`${gateway.url}/console${hash}`);
      }
      return { page, dialogs, pageErrors };
    },
    async selectModel(sessionId, model) {
      const response = await gateway.fetch(`/v1/sessions/${sessionId}/model`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model }),
      });
      if (response.status !== 200) {
        throw new Error(`selecting ${model} failed: ${response.status} ${await response.text()}`);
      }
    },
    async close() {
      await browser.close();
      await gateway.stop();
      await provider.close();
      await removeDir(dir);
    },
  };
}
