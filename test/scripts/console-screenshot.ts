/**
 * Makes `docs/console-timeline.png`: the console's view of one turn that meets an overloaded
 * primary (both profiles), falls back, waits out a rate limit's retry-after and is answered.
 * Run after building the gateway: `pnpm --filter @keel/integration-tests console:screenshot`.
 * Not part of the tests.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mockFaults } from '@keel/testing';
import { startConsoleFixture } from '../src/support/console-fixture';
import { sendMessage } from '../src/support/gateway-process';

const output = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'docs',
  'console-timeline.png',
);
const sessionId = 'checkout-42';

const fixture = await startConsoleFixture();
try {
  fixture.provider.enqueue(
    { behavior: mockFaults.overloaded(), match: { model: 'claude-main' }, times: 2 },
    {
      behavior: mockFaults.rateLimited({ retryAfterSeconds: 1 }),
      match: { model: 'claude-backup' },
    },
    {
      behavior: {
        type: 'ok',
        text: 'Your order #42 ships tomorrow; the tracking link is in your inbox.',
        chunkSize: 6,
        chunkDelayMs: 15,
      },
      match: { model: 'claude-backup' },
    },
  );
  const answer = await sendMessage(fixture.gateway, sessionId, { text: 'Where is my order #42?' });
  if (answer.body['outcome'] !== 'reply')
    throw new Error(`unexpected answer ${JSON.stringify(answer.body)}`);

  const page = await fixture.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${fixture.gateway.url}/console#/sessions/${sessionId}`);
  const turn = page.locator('[data-turn][data-outcome="reply"]');
  await turn.locator('[data-timeline] [data-decision="fallback_model"]').waitFor();
  await turn.locator('[data-role="assistant"]').waitFor();
  await turn.locator('.story-log > summary').click(); // the same story, as text
  await mkdir(dirname(output), { recursive: true });
  await turn.screenshot({ path: output });
  process.stdout.write(`wrote ${output}\n`);
} finally {
  await fixture.close();
}
