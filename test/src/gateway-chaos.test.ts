/**
 * Chaos: the built gateway over a mock provider in seeded random fault mode (resets, 5xx, 529
 * bursts, 429 with retry-after, mid-stream cuts, hangs), 20 sessions × 25 messages with
 * concurrent sends inside sessions, and three `kill -9` + restarts during the run. Clients retry
 * with their `clientMessageId` until they get an answer. Every message must end with exactly one
 * final outcome, none answered or stored twice, no turn over its request ceiling, every
 * transcript whole with no trailing orphan, and no lock left after a graceful stop.
 * `KEEL_CHAOS_SEED` changes the seed.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createTranscriptStore } from '@keel/session-fence';
import type { MessageEntry, TranscriptEntry } from '@keel/spec';
import { createMockProvider, type MockProvider, seededRandom } from '@keel/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

const SEED = Number(process.env['KEEL_CHAOS_SEED'] ?? 4242);
const SESSIONS = 20;
const MESSAGES = 25;
const KILLS = 3;

interface Answer {
  outcome: string;
  text: string;
  turnId: string;
  errorKind?: string;
}

let mock: MockProvider | undefined;
let gateway: GatewayProcess | undefined;
let dir: string | undefined;
afterAll(async () => {
  await gateway?.kill();
  await mock?.close();
  if (dir !== undefined) await removeDir(dir);
});

describe(`chaos (seed ${SEED})`, () => {
  it('every message gets exactly one outcome through faults and kill -9 restarts', {
    timeout: 900_000,
  }, async () => {
    const random = seededRandom(SEED);
    mock = await createMockProvider({
      chaos: { seed: SEED, retryAfterSeconds: 1 },
      defaultReply: () => 'A calm answer.',
    });
    const config = {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'anthropic',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [
            { id: 'k1', apiKey: 'chaos-key-1' },
            { id: 'k2', apiKey: 'chaos-key-2' },
          ],
        },
        {
          id: 'openai',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'o1', apiKey: 'chaos-key-3' }],
        },
      ],
      models: { primary: 'anthropic/primary', fallbacks: ['openai/fallback'] },
      retry: { maxRetries: 1, maxWaitMs: 2_000, baseDelayMs: 50, maxDelayMs: 200 },
      turn: { firstTokenTimeoutMs: 2_000, stallTimeoutMs: 2_000, lockTimeoutMs: 20_000 },
      shutdown: { graceMs: 5_000 },
      logging: { level: 'info' },
    };
    gateway = await startGateway({ config });
    dir = gateway.dir;
    const logs: Array<Record<string, unknown>> = [];
    const ceiling = Number(
      (await gateway.waitForLog((line) => line['requestCeiling'] !== undefined))['requestCeiling'],
    );
    let restarts = 0;
    const answers = new Map<string, Answer>();
    const attemptsPerMessage = new Map<string, number>();
    const total = SESSIONS * MESSAGES;
    const killAt = Array.from({ length: KILLS }, (_, index) =>
      Math.floor(((index + 1) * total) / (KILLS + 1)),
    );
    let restarting: Promise<void> | undefined;

    const restart = async () => {
      const old = gateway!;
      await old.kill();
      logs.push(...old.logs);
      restarts += 1;
      gateway = await startGateway({ config, dir: dir! });
    };

    /** Sends until an answer comes back; a failed connection waits for the restarted gateway. */
    const send = async (
      sessionId: string,
      clientMessageId: string,
      text: string,
    ): Promise<void> => {
      for (;;) {
        attemptsPerMessage.set(clientMessageId, (attemptsPerMessage.get(clientMessageId) ?? 0) + 1);
        await restarting;
        try {
          const response = await gateway!.fetch(`/v1/sessions/${sessionId}/messages`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ text, clientMessageId }),
          });
          if (response.status === 503) continue;
          expect(response.status).toBe(200);
          const body = (await response.json()) as Answer & { clientMessageId: string };
          expect(body.clientMessageId).toBe(clientMessageId);
          const earlier = answers.get(clientMessageId);
          if (earlier !== undefined) expect(body.turnId).toBe(earlier.turnId);
          answers.set(clientMessageId, body);
          return;
        } catch (error) {
          if ((error as { name?: string }).name === 'AssertionError') throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };

    let sentCount = 0;
    const client = async (session: number) => {
      const sessionId = `chaos-${session}`;
      let index = 0;
      while (index < MESSAGES) {
        // Sometimes two or three messages at once in one session.
        const batch = Math.min(MESSAGES - index, random() < 0.2 ? 2 + Math.floor(random() * 2) : 1);
        const sends: Promise<void>[] = [];
        for (let n = 0; n < batch; n += 1, index += 1) {
          sentCount += 1;
          if (killAt.includes(sentCount) && restarting === undefined) {
            restarting = restart().finally(() => {
              restarting = undefined;
            });
          }
          sends.push(send(sessionId, `${sessionId}-m${index}`, `message ${index} of ${sessionId}`));
        }
        await Promise.all(sends);
      }
    };
    await Promise.all(Array.from({ length: SESSIONS }, (_, session) => client(session)));
    await restarting;

    // A graceful stop, then the files alone tell the story.
    const last = gateway!;
    expect(await last.stop('SIGTERM')).toBe(0);
    logs.push(...last.logs);
    const store = createTranscriptStore({ sessionsDir: join(dir!, 'sessions') });
    const files = await readdir(join(dir!, 'sessions'));
    expect(files.filter((name) => name.endsWith('.lock'))).toEqual([]);
    expect(answers.size).toBe(total);
    for (let session = 0; session < SESSIONS; session += 1) {
      const read = await store.read(`chaos-${session}`);
      expect(read.issues, `chaos-${session}`).toEqual([]);
      checkTranscript(`chaos-${session}`, read.entries, answers);
    }
    const turnEnds = logs.filter((line) => line['msg'] === 'turn ended');
    for (const line of turnEnds) expect(Number(line['requests'])).toBeLessThanOrEqual(ceiling);

    const counts = { reply: 0, resend: 0, error: 0 };
    const errorKinds = new Map<string, number>();
    for (const answer of answers.values()) {
      counts[answer.outcome as keyof typeof counts] += 1;
      if (answer.errorKind !== undefined)
        errorKinds.set(answer.errorKind, (errorKinds.get(answer.errorKind) ?? 0) + 1);
    }
    const stats = mock.chaosStats();
    const faults = Object.values(stats.faults).reduce((sum, count) => sum + count, 0);
    const retries = [...attemptsPerMessage.values()].reduce((sum, count) => sum + count - 1, 0);
    process.stdout.write(
      `chaos summary (seed ${SEED}): ${total} messages — ${counts.reply} replies, ${counts.resend} resends, ${counts.error} errors; ` +
        `${stats.requests} provider requests, ${faults} faults injected (${JSON.stringify(stats.faults)}); ` +
        `${restarts} kill -9 restarts; ${retries} client retries; request ceiling ${ceiling}, most in one turn ${Math.max(0, ...turnEnds.map((line) => Number(line['requests'])))}\n`,
    );
    expect(restarts).toBe(KILLS);
    expect(counts.reply).toBeGreaterThan(0);
  });
});

/** Each client message stored once, answered by exactly one turn end; nothing orphaned at the end. */
function checkTranscript(
  sessionId: string,
  entries: readonly TranscriptEntry[],
  answers: ReadonlyMap<string, Answer>,
): void {
  const users = entries.filter(
    (entry): entry is MessageEntry => entry.type === 'message' && entry.role === 'user',
  );
  const byClient = new Map<string, MessageEntry[]>();
  for (const entry of users) {
    if (entry.clientMessageId === undefined) continue;
    byClient.set(entry.clientMessageId, [...(byClient.get(entry.clientMessageId) ?? []), entry]);
  }
  for (const [clientMessageId, stored] of byClient) {
    expect(stored, `${clientMessageId} stored once`).toHaveLength(1);
    const answer = answers.get(clientMessageId);
    expect(answer, `${clientMessageId} answered`).toBeDefined();
    const ends = entries.filter(
      (entry) =>
        entry.type === 'turn' &&
        entry.phase === 'end' &&
        (entry.messageId === stored[0]!.messageId ||
          entry.steeredMessageIds?.includes(stored[0]!.messageId)),
    );
    if (answer!.outcome === 'resend') {
      // A takeover ends the turn without writing its end: the message stays for the user to resend.
      expect(ends.length, `${clientMessageId} resend`).toBeLessThanOrEqual(1);
    } else {
      expect(ends, `${clientMessageId} answered once (${sessionId})`).toHaveLength(1);
      expect(ends[0]).toMatchObject({ turnId: answer!.turnId });
    }
  }
  const last = [...entries].reverse().find((entry) => entry.type === 'message');
  const orphan =
    last?.type === 'message' &&
    last.role === 'assistant' &&
    last.content.some((block) => block.type === 'tool_use');
  expect(orphan, `${sessionId} ends with an orphaned tool_use`).toBe(false);
}
