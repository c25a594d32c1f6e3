/**
 * The console shows an MCP tool call's arguments and result: live in the composer while the turn
 * runs (from the message's event stream), and in the transcript once it is written. The gateway
 * runs server-filesystem on a temp folder; the mock provider scripts the call; Chromium renders.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleBrowser, launchConsoleBrowser } from './support/console-browser';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';
import { MCP_BIN, mcpGatewayConfig } from './support/mcp-servers';

let mock: MockProvider;
let data: string;
let gateway: GatewayProcess;
let browser: ConsoleBrowser;

beforeAll(async () => {
  mock = await createMockProvider({ defaultReply: () => 'Done.' });
  data = await mkdtemp(join(tmpdir(), 'keel-mcp-console-'));
  await writeFile(join(data, 'tides.txt'), 'High tide at 14:05.\n');
  gateway = await startGateway({
    config: mcpGatewayConfig(mock, {
      mcp: { fs: { command: MCP_BIN.filesystem, args: [data], allow: ['read_text_file'] } },
    }),
  });
  browser = await launchConsoleBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await removeDir(gateway?.dir ?? '');
  await mock?.close();
  await rm(data, { recursive: true, force: true });
});

describe('MCP tools in the console', { timeout: 180_000 }, () => {
  it('shows the arguments and the result, live and in the transcript', async () => {
    const path = join(data, 'tides.txt');
    mock.enqueue(
      {
        type: 'ok',
        toolCalls: [{ id: 'toolu_tides', name: 'fs__read_text_file', input: { path } }],
      },
      { type: 'ok', text: 'High tide is at 14:05.' },
    );
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${gateway.url}/console#/sessions/tides`);
    await page.waitForSelector('[data-stream="live"]');
    await page.fill('textarea[name="text"]', 'When is high tide?');
    await page.click('[data-composer] button[type="submit"]');
    await page.waitForSelector('[data-live-turn="done"]');

    const live = (await page.locator('[data-live-turn] li').allTextContents()).join('\n');
    expect(live).toContain(`tool call fs__read_text_file {"path":"${path}"}`);
    expect(live).toContain('tool fs__read_text_file answered: High tide at 14:05.');

    const call = page.locator('[data-tool-call="fs__read_text_file"]');
    await call.waitFor();
    expect(await call.textContent()).toContain(path);
    const result = page.locator('[data-tool-result="toolu_tides"]');
    await result.waitFor();
    expect(await result.textContent()).toContain('High tide at 14:05.');
    expect(errors).toEqual([]);
    await page.close();
  });
});
