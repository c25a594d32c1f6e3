// `turn.lockTimeoutMs` (issue 23) through the built gateway: two gateways share one sessions
// folder; while the first runs a tool in a session's turn it holds the session's lease, and a
// message for that session on the second waits for the lease only `turn.lockTimeoutMs`, then
// ends with the coordination error. The setting (400 ms) is far from the default (30 000 ms):
// the answer's step is bounded at 20 s, which only the setting can meet (the answer names no
// bound, so the step's timeout is what tells them apart — a bound, not a timing).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, sendMessage } from './support/gateway-process';
import { useOptionGateways } from './support/option-gateways';
import { within } from './support/within';

const GATE_TOOL_PLUGIN = fileURLToPath(new URL('./fixtures/gate-tool-plugin.mjs', import.meta.url));

let shared: string;
beforeAll(async () => {
  shared = await mkdtemp(join(tmpdir(), 'keel-lock-'));
});
// After the gateways stop (vitest runs afterAll hooks last registered first).
afterAll(async () => {
  await rm(shared, { recursive: true, force: true });
});
const gateways = useOptionGateways();

/** A gateway on the mock whose sessions live in the shared folder, with `turn` settings. */
function start(turn: Record<string, unknown>): Promise<GatewayProcess> {
  return gateways.start({
    providerId: 'lk-a',
    models: { primary: 'lk-a/main' },
    config: {
      sessionsDir: join(shared, 'sessions'),
      turn,
      plugins: [{ module: GATE_TOOL_PLUGIN, options: { dir: shared } }],
    },
  });
}

describe('turn.lockTimeoutMs', () => {
  it('400: a message for a session whose lease another gateway holds ends with the coordination error well before the default 30 000 ms', {
    timeout: 120_000,
  }, async () => {
    const holder = await start({});
    const waiter = await start({ lockTimeoutMs: 400 });
    const { mock } = gateways;
    mock.enqueue(
      { type: 'ok', toolCalls: [{ name: 'hold', input: { gate: 'lease' } }] },
      { type: 'ok', text: 'held and done' },
    );
    const held = sendMessage(holder, 'locked', { text: 'hold the session' });
    await holder.waitForLog((line) => line['msg'] === 'tool holding' && line['gate'] === 'lease');

    // Only a bound on the step, far from both values: with the default the answer takes 30 s.
    const answer = await within(
      20_000,
      sendMessage(waiter, 'locked', { text: 'may I?' }),
      'the waiting gateway answered within 20 s',
    );
    expect(answer.body).toMatchObject({ outcome: 'error', errorKind: 'coordination' });
    // The waiting gateway sent nothing to the model; the holder's turn is untouched.
    expect(mock.requests).toHaveLength(1);
    await writeFile(join(shared, 'lease'), '');
    expect((await held).body).toMatchObject({ outcome: 'reply', text: 'held and done' });
  });
});
