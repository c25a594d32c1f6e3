import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); nothing here downloads a browser. */
export const CHROMIUM = process.env['KEEL_CHROMIUM'] ?? '/usr/bin/chromium';

export interface ConsoleBrowser {
  readonly context: BrowserContext;
  /** A new tab (its own session storage: no token kept from another tab). */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Starts headless Chromium with a fresh user-data-dir, no background networking, no component
 * updates and no sync: the browser talks only to the pages the test opens.
 */
export async function launchConsoleBrowser(): Promise<ConsoleBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set KEEL_CHROMIUM`,
    );
  }
  const userDataDir = await mkdtemp(join(tmpdir(), 'keel-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
    viewport: { width: 1400, height: 900 },
    timeout: 120_000,
  });
  context.setDefaultTimeout(60_000);
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
