/**
 * The chaos run shared by the chaos suites: built gateways over a mock provider in seeded random
 * fault mode (resets, 5xx, 529 bursts, 429 with retry-after, mid-stream cuts, hangs), `sessions` ×
 * `messages` with concurrent sends inside sessions, and `kills` `kill -9`s spread across the
 * gateways, each followed by a restart. Clients send each message to a random live gateway and
 * retry with its `clientMessageId` (on a random live gateway) until they get an answer. Asserts:
 * every message ends with exactly one outcome, none answered or stored twice, no `reply` without
 * its message and turn end in the transcript, no turn over its request ceiling, every transcript
 * whole with no trailing orphan, and no lease left after the graceful stops. Prints a summary.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { TranscriptRead } from '@keel/spec';
import { createMockProvider, seededRandom } from '@keel/testing';
import { expect } from 'vitest';
import { type ClientAnswer, checkTranscript } from './check-transcript';
import type { GatewayProcess } from './gateway-process';
import type { GatewayGroup } from './use-gateways';

/** Where the run's gateways keep sessions, and how the run reads them afterwards. */
export interface ChaosStorage {
  /** Named in the summary line: `file`, `postgres`. */
  readonly name: string;
  /** Merged into every gateway's configuration (`sessionsDir`, `storage`). */
  readonly config: Record<string, unknown>;
  /** A session's transcript after the run; `dir` is the first gateway's folder. */
  read(sessionId: string, dir: string): Promise<TranscriptRead>;
  /**
   * Leases left after every gateway stopped gracefully (lock files, lease rows): none expected,
   * but for those a `kill -9`ed gateway (`killedPids`) held when it died and no later turn of that
   * session took over (a retry answered from the stored outcome takes no lease): such a lock is
   * stale, and the next turn of its session breaks it at once.
   */
  leftLeases(dir: string, killedPids: readonly number[]): Promise<string[]>;
}

export interface ChaosOptions {
  seed: number;
  sessions: number;
  messages: number;
  kills: number;
  gateways: number;
  storage: ChaosStorage;
  /** Owns the gateway processes and the mock provider: cleaned up after the test, whatever happens. */
  group: GatewayGroup;
}

export interface ChaosSummary {
  messages: number;
  outcomes: { reply: number; resend: number; error: number };
  restarts: number;
  line: string;
}

interface Slot {
  gateway: GatewayProcess;
  /** Set while it is being killed and restarted: no message is sent to it meanwhile. */
  restarting: Promise<void> | undefined;
  kills: number;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosSummary> {
  const { seed, sessions, messages, kills, storage, group } = options;
  const random = seededRandom(seed);
  const pickRandom = seededRandom(seed + 1);
  const mock = await createMockProvider({
    chaos: { seed, retryAfterSeconds: 1 },
    defaultReply: () => 'A calm answer.',
  });
  group.defer(() => mock.close());
  const config = { ...chaosConfig(mock), ...storage.config };
  const slots: Slot[] = [];
  for (let index = 0; index < options.gateways; index += 1) {
    slots.push({ gateway: await group.start({ config }), restarting: undefined, kills: 0 });
  }
  const dir = slots[0]!.gateway.dir;
  const ceiling = Number(
    (await slots[0]!.gateway.waitForLog((line) => line['requestCeiling'] !== undefined))[
      'requestCeiling'
    ],
  );
  const logs: Array<Record<string, unknown>> = [];
  const answers = new Map<string, ClientAnswer>();
  // Each try of a message (a failure's evidence): the gateway's pid and what came back.
  const tries = new Map<string, string[]>();
  const noteTry = (clientMessageId: string, what: string) =>
    tries.set(clientMessageId, [...(tries.get(clientMessageId) ?? []), what]);
  const total = sessions * messages;
  const killAt = Array.from({ length: kills }, (_, index) =>
    Math.floor(((index + 1) * total) / (kills + 1)),
  );
  let restarts = 0;
  let killsStarted = 0;
  let pendingKills = 0;

  const killedPids: number[] = [];
  const restart = async (slot: Slot) => {
    const old = slot.gateway;
    if (old.child.pid !== undefined) killedPids.push(old.child.pid);
    await group.kill(old);
    logs.push(...tagged(old));
    restarts += 1;
    slot.kills += 1;
    slot.gateway = await group.start({ config, dir: old.dir });
  };
  /** Kills the next gateway in turn that is not restarting already (kills spread across them). */
  const killOne = () => {
    for (let offset = 0; offset < slots.length; offset += 1) {
      const slot = slots[(killsStarted + offset) % slots.length]!;
      if (slot.restarting !== undefined) continue;
      pendingKills -= 1;
      killsStarted += 1;
      slot.restarting = restart(slot).finally(() => {
        slot.restarting = undefined;
      });
      return;
    }
  };
  /** A random gateway that is up; waits for a restart when none is. */
  const pick = async (): Promise<GatewayProcess> => {
    for (;;) {
      const live = slots.filter((slot) => slot.restarting === undefined);
      if (live.length > 0) return live[Math.floor(pickRandom() * live.length)]!.gateway;
      await Promise.race(slots.map((slot) => slot.restarting));
    }
  };

  /** Sends until an answer comes back; a failed connection (a killed gateway) is retried. */
  const send = async (sessionId: string, clientMessageId: string, text: string) => {
    for (;;) {
      const gateway = await pick();
      try {
        const response = await gateway.fetch(`/v1/sessions/${sessionId}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text, clientMessageId }),
        });
        noteTry(clientMessageId, `pid ${gateway.child.pid}: ${response.status}`);
        if (response.status === 503) continue;
        expect(response.status).toBe(200);
        const body = (await response.json()) as ClientAnswer & { clientMessageId: string };
        expect(body.clientMessageId).toBe(clientMessageId);
        expect(answers.has(clientMessageId), `${clientMessageId} answered once`).toBe(false);
        answers.set(clientMessageId, body);
        return;
      } catch (error) {
        if ((error as { name?: string }).name === 'AssertionError') throw error;
        noteTry(clientMessageId, `pid ${gateway.child.pid}: ${String(error)}`);
        await delay(50);
      }
    }
  };

  let sentCount = 0;
  const client = async (session: number) => {
    const sessionId = `chaos-${session}`;
    let index = 0;
    while (index < messages) {
      // Sometimes two or three messages at once in one session.
      const batch = Math.min(messages - index, random() < 0.2 ? 2 + Math.floor(random() * 2) : 1);
      const sends: Promise<void>[] = [];
      for (let n = 0; n < batch; n += 1, index += 1) {
        sentCount += 1;
        if (killAt.includes(sentCount)) pendingKills += 1;
        if (pendingKills > 0) killOne();
        sends.push(send(sessionId, `${sessionId}-m${index}`, `message ${index} of ${sessionId}`));
      }
      await Promise.all(sends);
    }
  };
  await Promise.all(Array.from({ length: sessions }, (_, session) => client(session)));
  while (slots.some((slot) => slot.restarting !== undefined)) {
    await Promise.all(slots.map((slot) => slot.restarting));
  }

  // Graceful stops, then the stored sessions alone tell the story.
  for (const slot of slots) {
    expect(await slot.gateway.stop('SIGTERM')).toBe(0);
    logs.push(...tagged(slot.gateway));
  }
  expect(await storage.leftLeases(dir, killedPids)).toEqual([]);
  expect(answers.size).toBe(total);
  for (let session = 0; session < sessions; session += 1) {
    const sessionId = `chaos-${session}`;
    const read = await storage.read(sessionId, dir);
    expect(read.issues, sessionId).toEqual([]);
    let stored: Set<string>;
    try {
      stored = checkTranscript(sessionId, read.entries, answers);
    } catch (error) {
      process.stdout.write(`${describeSession(sessionId, tries, logs)}\n`);
      throw error;
    }
    for (let index = 0; index < messages; index += 1) {
      const clientMessageId = `${sessionId}-m${index}`;
      if (answers.get(clientMessageId)?.outcome === 'reply') {
        expect(stored.has(clientMessageId), `${clientMessageId} replied and stored`).toBe(true);
      }
    }
  }
  const turnEnds = logs.filter((line) => line['msg'] === 'turn ended');
  for (const line of turnEnds) expect(Number(line['requests'])).toBeLessThanOrEqual(ceiling);

  const outcomes = { reply: 0, resend: 0, error: 0 };
  const errorKinds: Record<string, number> = {};
  for (const answer of answers.values()) {
    outcomes[answer.outcome as keyof typeof outcomes] += 1;
    if (answer.outcome === 'error') {
      const kind = answer.errorKind ?? 'none';
      errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
    }
  }
  const stats = mock.chaosStats();
  const faults = Object.values(stats.faults).reduce((sum, count) => sum + count, 0);
  const retries = [...tries.values()].reduce((sum, each) => sum + each.length - 1, 0);
  const most = Math.max(0, ...turnEnds.map((line) => Number(line['requests'])));
  const killed =
    slots.length > 1 ? ` (per gateway ${slots.map((slot) => slot.kills).join('/')})` : '';
  const line =
    `chaos summary (seed ${seed}, ${storage.name}, ${slots.length} gateway${slots.length > 1 ? 's' : ''}): ` +
    `${total} messages — ${outcomes.reply} replies, ${outcomes.resend} resends, ${outcomes.error} errors ${JSON.stringify(errorKinds)}; ` +
    `${stats.requests} provider requests, ${faults} faults injected (${JSON.stringify(stats.faults)}); ` +
    `${restarts} kill -9 restarts${killed}; ${retries} client retries; ` +
    `request ceiling ${ceiling}, most in one turn ${most}`;
  process.stdout.write(`${line}\n`);
  return { messages: total, outcomes, restarts, line };
}

/** A gateway's log lines, each with the gateway's pid (`gatewayPid`). */
function tagged(gateway: GatewayProcess): Array<Record<string, unknown>> {
  return gateway.logs.map((line) => ({ gatewayPid: gateway.child.pid, ...line }));
}

/** A failed session's story: each try of its messages, and what the gateways logged about it. */
function describeSession(
  sessionId: string,
  tries: ReadonlyMap<string, string[]>,
  logs: ReadonlyArray<Record<string, unknown>>,
): string {
  const lines = [`${sessionId}: the tries of its messages`];
  for (const [clientMessageId, each] of tries) {
    if (clientMessageId.startsWith(`${sessionId}-`))
      lines.push(`  ${clientMessageId}: ${each.join(' → ')}`);
  }
  lines.push(`${sessionId}: what the gateways logged`);
  for (const line of logs)
    if (line['sessionId'] === sessionId) lines.push(`  ${JSON.stringify(line)}`);
  return lines.join('\n');
}

function chaosConfig(mock: { anthropicBaseUrl: string; openaiBaseUrl: string }) {
  return {
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
}
