/**
 * The four incidents Keel exists for, end to end over HTTP against the built gateway as a child
 * process, with exact provider request counts: a takeover (resend, one request), an overload on
 * three keys (two primary requests, then the fallback), a compaction whose summarizer call is cut
 * by the provider (retried, a real summary stored, never a placeholder), and the real Claude Code
 * CLI killed mid-tool (the next turn reseeds a fresh CLI session instead of dying on the orphan).
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { killProcessesIn, processesIn } from './support/process-scan';
import { waitUntil } from './support/wait-until';

let mock: MockProvider | undefined;
const gateways: GatewayProcess[] = [];
afterEach(async () => {
  for (const gateway of gateways.splice(0)) {
    await gateway.kill();
    await removeDir(gateway.dir);
  }
  await mock?.close();
  mock = undefined;
});

function sdkConfig(provider: MockProvider, extra: Record<string, unknown> = {}) {
  return {
    sessionsDir: 'sessions',
    providers: [
      {
        id: 'anthropic',
        api: 'anthropic-messages',
        baseUrl: provider.anthropicBaseUrl,
        profiles: ['k1', 'k2', 'k3'].map((id) => ({ id, apiKey: `key-${id}` })),
      },
      {
        id: 'openai',
        api: 'openai-chat',
        baseUrl: provider.openaiBaseUrl,
        profiles: [{ id: 'o1', apiKey: 'key-o1' }],
      },
    ],
    models: { primary: 'anthropic/primary', fallbacks: ['openai/fallback'] },
    logging: { level: 'info' },
    ...extra,
  };
}

async function start(config: Record<string, unknown>, env: Record<string, string> = {}) {
  const gateway = await startGateway({ config, env });
  gateways.push(gateway);
  return gateway;
}

const sent = (provider: MockProvider) =>
  provider.requests.filter((request) => request.api !== 'other' && request.api !== 'count-tokens');

describe('the seed incidents, end to end', () => {
  it('a takeover during the model call: resend after exactly one request, the message kept', async () => {
    mock = await createMockProvider({
      script: [
        {
          behavior: { type: 'ok', text: 'a slow answer', chunkDelayMs: 200 },
          match: { model: 'primary' },
        },
      ],
    });
    const gateway = await start(sdkConfig(mock));
    const answer = sendMessage(gateway, 's1', { text: 'first words', clientMessageId: 'c1' });
    await mock.waitForRequests(1);
    const transcript = join(gateway.dir, 'sessions', 's1.jsonl');
    appendFileSync(
      transcript,
      `${JSON.stringify({ type: 'message', id: 'x1', messageId: 'x1', timestamp: new Date().toISOString(), role: 'user', content: [{ type: 'text', text: 'another writer' }] })}\n`,
    );
    const { body } = await answer;
    expect(body).toMatchObject({
      outcome: 'resend',
      errorKind: 'session_takeover',
      staleReply: 'a slow answer',
    });
    expect(sent(mock)).toHaveLength(1);
    const lines = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.some((entry) => entry.type === 'message' && entry.clientMessageId === 'c1')).toBe(
      true,
    );
    expect(lines.some((entry) => entry.type === 'message' && entry.role === 'assistant')).toBe(
      false,
    );
  });

  it('the primary overloaded on all three keys: exactly two primary requests on distinct keys, then the fallback', async () => {
    mock = await createMockProvider({
      script: [1, 2, 3].map(() => ({
        behavior: mockFaults.overloaded(),
        match: { model: 'primary' },
      })),
    });
    const gateway = await start(sdkConfig(mock));
    const { body } = await sendMessage(gateway, 's1', { text: 'hello' });
    expect(body).toMatchObject({ outcome: 'reply', model: 'openai/fallback' });
    expect(sent(mock).map((request) => `${request.model} ${request.apiKey}`)).toEqual([
      'primary key-k1',
      'primary key-k2',
      'fallback key-o1',
    ]);
    const events = (await (await gateway.fetch('/v1/sessions/s1/events')).json()) as {
      events: Array<{ type: string; label?: string }>;
    };
    expect(
      events.events.filter((event) => event.type === 'decision').map((event) => event.label),
    ).toEqual(['rotate_profile', 'fallback_model']);
    // One turn's two overloaded answers are not evidence enough to open the shared breaker: the
    // next session asks the primary once more; that third failure in a row opens it (3 of 3),
    // so that session's next key is skipped, and a third session does not touch the primary.
    const second = await sendMessage(gateway, 's2', { text: 'hello again' });
    expect(second.body).toMatchObject({ outcome: 'reply', model: 'openai/fallback' });
    expect(sent(mock).filter((request) => request.model === 'primary')).toHaveLength(3);
    await sendMessage(gateway, 's3', { text: 'and again' });
    expect(sent(mock).filter((request) => request.model === 'primary')).toHaveLength(3);
  });

  it('a compaction whose summarizer call the provider cuts: retried, a real summary stored, never a placeholder', async () => {
    const summary = [
      'Goal',
      'Constraints',
      'Decisions',
      'Progress',
      'Open items',
      'Exact identifiers',
    ]
      .map((section) => `## ${section}\nNothing special.`)
      .join('\n');
    mock = await createMockProvider({ defaultReply: () => 'Plain words only.' });
    const gateway = await start(
      sdkConfig(mock, { compaction: { model: 'openai/summarizer', keepRecentTokens: 10 } }),
    );
    for (const text of ['one question', 'two questions', 'three questions']) {
      await sendMessage(gateway, 's1', { text });
    }
    const before = sent(mock).length;
    mock.enqueue(
      { behavior: mockFaults.promptTooLong(), match: { model: 'primary' } },
      {
        behavior: { type: 'reset-after-chunks', chunks: 1, text: 'partial summ' },
        match: { model: 'summarizer' },
      },
      { behavior: { type: 'ok', text: summary }, match: { model: 'summarizer' } },
    );
    const { body } = await sendMessage(gateway, 's1', { text: 'four questions' });
    expect(body).toMatchObject({ outcome: 'reply', model: 'anthropic/primary' });
    expect(
      sent(mock)
        .slice(before)
        .map((request) => request.model),
    ).toEqual(['primary', 'summarizer', 'summarizer', 'primary']);
    const { entries } = (await (await gateway.fetch('/v1/sessions/s1/transcript')).json()) as {
      entries: Array<{ type: string; summary?: string; provenance?: { attempts: number } }>;
    };
    const compactions = entries.filter((entry) => entry.type === 'compaction');
    expect(compactions).toHaveLength(1);
    expect(compactions[0]).toMatchObject({ summary, provenance: { attempts: 2 } });
  });

  it('the real Claude Code CLI killed mid-tool: the recovered turn reseeds a fresh CLI session and answers', async () => {
    mock = await createMockProvider({ defaultReply: () => 'Recovered and answering.' });
    const root = join(dirname(fileURLToPath(import.meta.url)), '..');
    const claude = join(root, 'node_modules', '.bin', 'claude');
    const dir = (await startGatewayDirOnly()) as string;
    const work = join(dir, 'work');
    const home = join(dir, 'home');
    mkdirSync(work, { recursive: true });
    mkdirSync(home, { recursive: true });
    const hang = 'timeout 97 tail -f /dev/null';
    mock.enqueue({
      behavior: { type: 'ok', text: 'Bound and answering.' },
      match: { model: 'claude-keel-seed' },
    });
    mock.enqueue({
      behavior: {
        type: 'ok',
        toolCalls: [
          { id: 'toolu_seed_hang', name: 'Bash', input: { command: hang, description: 'Wait' } },
        ],
      },
      match: { model: 'claude-keel-seed' },
    });
    const config = {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'claude',
          api: 'claude-cli',
          command: claude,
          cwd: work,
          allowedTools: ['Bash'],
          env: {
            HOME: home,
            ANTHROPIC_BASE_URL: mock.anthropicBaseUrl,
            ANTHROPIC_API_KEY: 'test',
            DISABLE_TELEMETRY: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          },
        },
      ],
      models: { primary: 'claude/claude-keel-seed' },
      turn: { firstTokenTimeoutMs: 120_000, stallTimeoutMs: 120_000 },
      logging: { level: 'info' },
    };
    const first = await startGateway({ config, dir });
    gateways.push(first);
    // A first turn binds the gateway session to a CLI session; the second resumes it and is killed.
    const bound = await sendMessage(first, 's1', { text: 'hello' });
    expect(bound.body).toMatchObject({ outcome: 'reply', text: 'Bound and answering.' });
    const lost = sendMessage(first, 's1', {
      text: 'please wait for me',
      clientMessageId: 'cli-1',
    }).catch(() => undefined);
    await waitUntil('the Bash tool to run', () => processesIn(work, hang).length > 0);
    // The incident needs the call in the CLI's own transcript: running the tool does not mean the
    // CLI has written it (under load it had not, and the next turn found nothing orphaned).
    await waitUntil('the CLI to record the tool call', () =>
      cliTranscripts(home).some((text) => text.includes('toolu_seed_hang')),
    );
    // Everything dies at once, as in a crash: the CLI is stopped first, so it cannot notice its
    // gateway's death and record an interrupted tool result before it is killed.
    for (const pid of processesIn(work)) process.kill(pid, 'SIGSTOP');
    await first.kill();
    killProcessesIn(work);
    await lost;

    const second = await startGateway({ config, dir });
    gateways.push(second);
    const { body } = await sendMessage(second, 's1', {
      text: 'please wait for me',
      clientMessageId: 'cli-1',
    });
    expect(body).toMatchObject({
      outcome: 'reply',
      text: 'Recovered and answering.',
      clientMessageId: 'cli-1',
    });
    const events = (await (await second.fetch('/v1/sessions/s1/events')).json()) as {
      events: Array<{ type: string; event?: { type: string; reason?: string } }>;
    };
    expect(
      events.events.filter((event) => event.type === 'binding').map((event) => event.event),
    ).toContainEqual(
      expect.objectContaining({ type: 'binding-invalidated', reason: 'orphaned-tool-use' }),
    );
    killProcessesIn(work);
  });
});

/** The text of every Claude Code transcript under `home` (`.claude/projects/<cwd>/<id>.jsonl`). */
function cliTranscripts(home: string): string[] {
  const projects = join(home, '.claude', 'projects');
  if (!existsSync(projects)) return [];
  return readdirSync(projects, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.jsonl'))
    .map((path) => readFileSync(join(projects, path), 'utf8'));
}

async function startGatewayDirOnly(): Promise<string> {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  return mkdtemp(join(tmpdir(), 'keel-seed-cli-'));
}
