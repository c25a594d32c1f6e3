import { createTranscriptStore } from '@keel/session-fence';
import { mockFaults } from '@keel/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleFixture, startConsoleFixture } from './support/console-fixture';
import { sendMessage } from './support/gateway-process';

const SLOW = { timeout: 180_000 };
let fixture: ConsoleFixture;

beforeAll(async () => {
  fixture = await startConsoleFixture();
}, 180_000);
afterAll(async () => {
  await fixture?.close();
}, 60_000);

/** Attributes of every attempt row of the session's timelines, in order. */
async function attemptRows(page: Page) {
  return page.$$eval('[data-timeline] [data-attempt]', (rows) =>
    rows.map((row) => ({
      attempt: row.getAttribute('data-attempt'),
      provider: row.getAttribute('data-provider'),
      profile: row.getAttribute('data-profile'),
      model: row.getAttribute('data-model'),
      outcome: row.getAttribute('data-attempt-outcome'),
      errorKind: row.getAttribute('data-error-kind'),
      decision: row.querySelector('[data-decision]')?.getAttribute('data-decision') ?? null,
    })),
  );
}

describe('the console in a real browser', () => {
  it('lists a new session as it appears, without a reload, and filters by id', SLOW, async () => {
    const { page, pageErrors } = await fixture.open('#/');
    await page.waitForSelector('[data-stream="live"]');
    expect(await page.locator('[data-session-id="list-new-1"]').count()).toBe(0);

    const answer = await sendMessage(fixture.gateway, 'list-new-1', { text: 'hello console' });
    expect(answer.body).toMatchObject({ outcome: 'reply', model: 'mock/claude-main' });

    const row = page.locator('[data-session-id="list-new-1"]');
    await row.waitFor();
    await row.locator('[data-outcome="reply"]').waitFor();
    expect(await row.locator('td').nth(2).textContent()).toBe('mock/claude-main');
    expect(await row.locator('td').nth(3).textContent()).toBe('4');
    // The reply is shown as its turn's events arrive; the session turns idle a moment later, when
    // the turn has let the session go (a later event on a loaded machine): wait for it.
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain('idle');

    await page.fill('input[name="filter"]', 'no-such-session');
    await row.waitFor({ state: 'detached' });
    await page.fill('input[name="filter"]', 'LIST-NEW');
    await row.waitFor();
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it(
    'draws an overload-then-fallback turn: two attempts of the selected model on different profiles, then fallback_model',
    SLOW,
    async () => {
      const sessionId = 'fallback-1';
      // The session's selected model goes first, then the configured chain (its primary first).
      await fixture.selectModel(sessionId, 'mock/overloaded-1');
      fixture.provider.enqueue(
        { behavior: mockFaults.overloaded(), match: { model: 'overloaded-1' }, times: 2 },
        {
          behavior: { type: 'ok', text: 'The backup answers.' },
          match: { model: 'claude-main' },
        },
      );
      const { page } = await fixture.open(`#/sessions/${sessionId}`);
      await page.waitForSelector('[data-stream="live"]');

      const answer = await sendMessage(fixture.gateway, sessionId, { text: 'are you there?' });
      expect(answer.body).toMatchObject({ outcome: 'reply', text: 'The backup answers.' });

      // The transcript's turn end can be drawn before the live stream brings the last
      // attempt's end: wait for that attempt's own outcome, not the turn's.
      await page.waitForSelector(
        '[data-turn][data-outcome="reply"] [data-timeline] [data-attempt="3"][data-attempt-outcome="ok"]',
      );
      const rows = await attemptRows(page);
      const primary = rows.filter((row) => row.model === 'overloaded-1');
      expect(primary).toHaveLength(2);
      expect(primary.map((row) => row.provider)).toEqual(['mock', 'mock']);
      expect(new Set(primary.map((row) => row.profile))).toEqual(new Set(['key-a', 'key-b']));
      expect(primary.map((row) => row.errorKind)).toEqual(['overloaded', 'overloaded']);
      expect(primary.map((row) => row.decision)).toEqual(['rotate_profile', 'fallback_model']);
      expect(rows.at(-1)).toMatchObject({ provider: 'mock', model: 'claude-main', outcome: 'ok' });
      // The selection and the reply are in the transcript beside the timeline.
      await page.waitForSelector('[data-model-selection="mock/overloaded-1"]');
      await page.waitForSelector('[data-role="assistant"] >> text=The backup answers.');
      await page.close();
    },
  );

  it('draws a wait for retry-after before the attempt that answers', SLOW, async () => {
    const sessionId = 'wait-1';
    await fixture.selectModel(sessionId, 'backup/limited-1');
    fixture.provider.enqueue(
      {
        behavior: mockFaults.rateLimited({ retryAfterSeconds: 1 }),
        match: { model: 'limited-1' },
      },
      { behavior: { type: 'ok', text: 'After the wait.' }, match: { model: 'limited-1' } },
    );
    const answer = await sendMessage(fixture.gateway, sessionId, { text: 'please wait' });
    expect(answer.body).toMatchObject({ outcome: 'reply', text: 'After the wait.' });

    const { page } = await fixture.open(`#/sessions/${sessionId}`);
    await page.waitForSelector('[data-timeline] [data-wait="wait"]');
    const wait = page.locator('[data-timeline] [data-wait="wait"]');
    expect(await wait.textContent()).toContain('retry-after');
    const rows = await attemptRows(page);
    expect(rows.map((row) => [row.profile, row.errorKind, row.decision])).toEqual([
      ['main', 'rate_limit', 'wait'],
      ['main', null, null],
    ]);
    await page.close();
  });

  it(
    'shows a takeover as resend: a foreign append to the transcript during a slow model call',
    SLOW,
    async () => {
      const sessionId = 'takeover-1';
      await fixture.selectModel(sessionId, 'mock/slow-1');
      fixture.provider.enqueue({
        behavior: {
          type: 'ok',
          text: 'This answer streams slowly, in many small pieces, while another writer appends.',
          chunkSize: 4,
          chunkDelayMs: 300,
        },
        match: { model: 'slow-1' },
      });
      const { page } = await fixture.open(`#/sessions/${sessionId}`);
      await page.waitForSelector('[data-stream="live"]');

      const before = fixture.provider.requests.length;
      const answered = sendMessage(fixture.gateway, sessionId, { text: 'take your time' });
      const requests = await fixture.provider.waitForRequests(before + 1);
      expect(requests.at(-1)?.model).toBe('slow-1');
      // Another gateway (here: this process) writes to the session while the model streams.
      const other = createTranscriptStore({ sessionsDir: fixture.sessionsDir });
      await other.append(sessionId, [
        {
          type: 'message',
          id: 'foreign-1',
          messageId: 'foreign-1',
          timestamp: new Date().toISOString(),
          role: 'user',
          content: [{ type: 'text', text: 'written by another gateway' }],
        },
      ]);
      const answer = await answered;
      expect(answer.body).toMatchObject({ outcome: 'resend' });

      await page.waitForSelector('[data-turn][data-outcome="resend"] [data-timeline]');
      const turn = page.locator('[data-turn][data-outcome="resend"]');
      await turn.locator('[data-log-decision="resend"]').waitFor({ state: 'attached' });
      const rows = await attemptRows(page);
      expect(rows).toEqual([
        expect.objectContaining({
          model: 'slow-1',
          errorKind: 'session_takeover',
          decision: 'resend',
        }),
      ]);
      expect(await turn.locator('[data-outcome-text]').textContent()).toContain('session_takeover');
      await page.waitForSelector('[data-role="user"] >> text=written by another gateway');
      await page.close();
    },
  );

  it('renders a message with markup as text: no element, no script', SLOW, async () => {
    const sessionId = 'xss-1';
    const hostile = '<img src=x onerror=alert(1)>';
    const { page, dialogs, pageErrors } = await fixture.open(`#/sessions/${sessionId}`);
    await page.waitForSelector('[data-stream="live"]');
    await page.waitForSelector('[data-empty]');

    // The composer sends it and shows the turn unfold.
    await page.fill('textarea[name="text"]', hostile);
    await page.click('[data-composer] button[type="submit"]');
    await page.waitForSelector('[data-live-outcome="reply"]');
    await page.waitForSelector('[data-live-turn="done"]');
    expect(await page.locator('[data-live-turn] .live-text').textContent()).toContain(hostile);

    const user = page.locator('[data-role="user"] .text');
    await user.waitFor();
    expect(await user.textContent()).toBe(hostile);
    await page.locator('[data-role="assistant"] .text', { hasText: hostile }).waitFor();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('[data-transcript] *[onerror]').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it(
    'shows a breaker open after an overload, then closed once the provider recovers',
    SLOW,
    async () => {
      const sessionId = 'breaker-1';
      await fixture.selectModel(sessionId, 'mock/flaky-1');
      // A retry-after past retry.maxWaitMs opens the breaker at once (one failure is no evidence).
      const overloaded = { ...mockFaults.overloaded(), headers: { 'retry-after': '12' } };
      fixture.provider.enqueue({ behavior: overloaded, match: { model: 'flaky-1' } });
      const { page } = await fixture.open('#/providers');
      await page.waitForSelector('[data-stream="live"]');

      const failing = await sendMessage(fixture.gateway, sessionId, { text: 'first try' });
      expect(failing.body).toMatchObject({ outcome: 'reply', model: 'mock/claude-main' });
      const breaker = '[data-breaker="mock/flaky-1"]';
      await page.waitForSelector(`${breaker}[data-state="open"]`);
      // Its cooldown runs out (the provider's retry-after); the next request is the probe.
      await page.waitForSelector(`${breaker}[data-state="half-open"]`);

      const recovered = await sendMessage(fixture.gateway, sessionId, { text: 'second try' });
      expect(recovered.body).toMatchObject({ outcome: 'reply', model: 'mock/flaky-1' });
      await page.waitForSelector(`${breaker}[data-state="closed"]`);
      // The rates saw the failed attempts and the fallback.
      await page.waitForSelector('[data-provider-rate="mock"]');
      await page.locator('[data-chart="fallbacks"]:not([data-total="0"])').waitFor();
      await page.close();
    },
  );
});
