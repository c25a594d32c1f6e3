/**
 * Row 8: a gateway is killed with SIGKILL while a message's turn waits on the provider; it is
 * started again on the same folder, and the client retries the message with its
 * `clientMessageId`. Time from the kill to the first answered retry, with 1 000 other sessions on
 * disk, against the same with none.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTranscriptStore } from '@keel/session-fence';
import type { TranscriptEntry } from '@keel/spec';
import { pick } from './lib/env';
import { type GatewayConfig, mockGatewayConfig, startKeelGateway } from './lib/keel-gateway';
import { startMockProcess } from './lib/mock-process';
import { publish } from './lib/result';
import { median, ms, ratio } from './lib/stats';

const SESSIONS_ON_DISK = pick(1000, 50);
const ROUNDS = pick(3, 1);
const MODEL = 'bench-model';

const mock = await startMockProcess({ reply: 'ok' });

/** Writes `count` sessions of a short finished conversation each (user, assistant, turn end). */
async function populate(sessionsDir: string, count: number): Promise<void> {
  const store = createTranscriptStore({ sessionsDir, fsync: false });
  const timestamp = new Date().toISOString();
  for (let index = 0; index < count; index += 1) {
    const entries: TranscriptEntry[] = [];
    for (let turn = 0; turn < 3; turn += 1) {
      const id = `s${index}-t${turn}`;
      entries.push(
        { type: 'turn', id: `${id}-start`, timestamp, turnId: id, phase: 'start' },
        {
          type: 'message',
          id: `${id}-u`,
          messageId: `${id}-u`,
          timestamp,
          role: 'user',
          content: [{ type: 'text', text: `question ${turn}` }],
          turnId: id,
        },
        {
          type: 'message',
          id: `${id}-a`,
          messageId: `${id}-a`,
          timestamp,
          role: 'assistant',
          content: [{ type: 'text', text: 'answer' }],
          turnId: id,
        },
        {
          type: 'turn',
          id: `${id}-end`,
          timestamp,
          turnId: id,
          phase: 'end',
          outcome: 'reply',
          text: 'answer',
        },
      );
    }
    await store.append(`old-${index}`, entries);
  }
}

interface Timing {
  /** Kill to the first answered retry. */
  total: number;
  /** Kill to the restarted gateway's listening line. */
  listening: number;
}

/** One crash and retry in a gateway folder holding `sessions` other sessions. */
async function crashAndRetry(sessions: number, round: number): Promise<Timing> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-bench-recovery-'));
  try {
    await populate(join(dir, 'sessions'), sessions);
    const config: GatewayConfig = mockGatewayConfig({
      baseUrl: mock.openaiBaseUrl,
      sessionsDir: 'sessions',
      providers: [{ id: 'mock', keys: ['sk-bench'] }],
      primary: `mock/${MODEL}`,
    });
    const first = await startKeelGateway(config, dir);
    await first.send('warm-up', 'hi');
    // The provider holds the next request: the turn waits on it when the gateway dies.
    await mock.enqueue({ behavior: { type: 'hang' }, match: { model: MODEL }, times: 1 });
    const before = (await mock.stats()).total;
    const clientMessageId = `retry-${round}`;
    const inFlight = first.send('victim', 'are you there?', clientMessageId).catch(() => undefined);
    while ((await mock.stats()).total === before)
      await new Promise((resolve) => setImmediate(resolve));
    const killed = performance.now();
    await first.service.kill();
    await inFlight;
    const second = await startKeelGateway(config, dir);
    const listening = performance.now() - killed;
    const answer = await second.send('victim', 'are you there?', clientMessageId);
    const total = performance.now() - killed;
    if (answer.outcome !== 'reply') throw new Error(`retry answered ${answer.outcome}`);
    await second.close();
    return { total, listening };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const results = { empty: [] as Timing[], full: [] as Timing[] };
await crashAndRetry(0, -1); // warm-up (file caches, the gateway's modules)
for (let round = 0; round < ROUNDS; round += 1) {
  for (const variant of round % 2 === 0
    ? (['empty', 'full'] as const)
    : (['full', 'empty'] as const)) {
    results[variant].push(await crashAndRetry(variant === 'full' ? SESSIONS_ON_DISK : 0, round));
  }
}
const total = (list: Timing[]) => median(list.map((timing) => timing.total));
const listening = (list: Timing[]) => median(list.map((timing) => timing.listening));
await publish({
  order: 8,
  title: '8. Recovery',
  method: `A gateway (file store, fsync on) runs a turn whose provider request hangs; it is killed with SIGKILL, started again on the same folder, and the client retries the message with the same \`clientMessageId\` as soon as the new process listens. Timed from the kill to the retry's answer (a reply) at the client. The folder holds ${SESSIONS_ON_DISK} other sessions (three finished turns each), which the restarted gateway scans for unanswered messages in the background while it already serves. ${ROUNDS} rounds, variants alternating, after one warm-up.`,
  baseline: 'the same crash and retry with no other session on disk, in the same run.',
  tables: [
    {
      table: {
        columns: [
          'sessions on disk',
          'kill → first answered retry ms (median)',
          'vs baseline',
          'of which kill → listening ms',
        ],
        rows: [
          ['0', ms(total(results.empty)), '1.00×', ms(listening(results.empty))],
          [
            String(SESSIONS_ON_DISK),
            ms(total(results.full)),
            ratio(total(results.full), total(results.empty)),
            ms(listening(results.full)),
          ],
        ],
      },
    },
  ],
  targets: [],
  notes: [
    "The issue sets no number for this row. Most of the time is the new process starting (Node, the gateway's modules, the config); the retry itself finds its message in the transcript (stored before the crash) and answers it in one turn — a stale lock left by the killed process is taken over at once, its pid being dead on this host.",
  ],
});
await mock.close();
