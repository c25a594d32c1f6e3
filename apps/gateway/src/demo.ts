#!/usr/bin/env node
/**
 * `pnpm demo`: starts a gateway on a loopback mock provider that fails on purpose, sends a short
 * scripted session through it over HTTP (streaming), and prints each message's outcome and the
 * decisions taken — a reset, an overload with fallback, a takeover, a compaction, a tool call.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTranscriptStore } from '@keel/session-fence';
import { createMockProvider } from '@keel/testing';
import { configSchema } from './config/config-schema';
import { createGateway } from './create-gateway';
import { DEMO_STEPS, demoReply } from './demo/demo-script';
import { printStream } from './demo/print-stream';

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-demo-'));
  const mock = await createMockProvider({ demo: true, defaultReply: demoReply });
  const config = configSchema.parse({
    server: { port: 0 },
    sessionsDir: join(dir, 'sessions'),
    providers: [
      {
        id: 'demo',
        api: 'anthropic-messages',
        baseUrl: mock.anthropicBaseUrl,
        profiles: [
          { id: 'key-a', apiKey: 'demo-key-a' },
          { id: 'key-b', apiKey: 'demo-key-b' },
        ],
      },
      {
        id: 'backup',
        api: 'openai-chat',
        baseUrl: mock.openaiBaseUrl,
        profiles: [{ id: 'main', apiKey: 'demo-key-c' }],
      },
    ],
    models: { primary: 'demo/keel-demo', fallbacks: ['backup/keel-backup'] },
    tools: ['current_time', 'roll_dice'],
    compaction: { model: 'backup/keel-summarizer', keepRecentTokens: 60 },
    logging: { level: 'silent' },
  });
  const gateway = await createGateway({ config, logger: false });
  const url = await gateway.listen({ port: 0 });
  const other = createTranscriptStore({ sessionsDir: config.sessionsDir });
  const sessionId = 'demo-session';
  const tally = new Map<string, number>();
  process.stdout.write(`Keel demo: a gateway at ${url} on a mock provider that fails on purpose\n`);
  try {
    for (const [index, step] of DEMO_STEPS.entries()) {
      process.stdout.write(`\n${index + 1}. ${step.title}\n   you: ${step.text}\n`);
      mock.enqueue(...step.faults);
      const before = mock.requests.length;
      const response = fetch(`${url}/v1/sessions/${sessionId}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ text: step.text }),
      });
      if (step.takeover === true) {
        await mock.waitForRequests(before + 1);
        await other.append(sessionId, [
          {
            type: 'message',
            id: `other-writer-${index}`,
            messageId: `other-writer-${index}`,
            timestamp: new Date().toISOString(),
            role: 'user',
            content: [{ type: 'text', text: '(a note written by another process)' }],
          },
        ]);
      }
      const outcome = await printStream(await response, (line) =>
        process.stdout.write(`   ${line}\n`),
      );
      tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
      process.stdout.write(`   provider requests: ${mock.requests.length - before}\n`);
    }
  } finally {
    await gateway.close();
    await mock.close();
    await rm(dir, { recursive: true, force: true });
  }
  const summary = [...tally].map(([kind, count]) => `${count} ${kind}`).join(', ');
  process.stdout.write(
    `\nDone: ${DEMO_STEPS.length} messages (${summary}); every one got exactly one outcome.\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
