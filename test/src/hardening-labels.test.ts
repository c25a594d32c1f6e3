import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';

// Unknown model names: a client may send any string as a model; none may become a session's
// model, a metric series, or a raw control or bidi character in an answer, a log or /metrics.

/** Escapes (C0, DEL, C1) and bidi controls: what must never appear raw. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

let gateway: GatewayProcess;

beforeAll(async () => {
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        { id: 'demo', api: 'demo' },
        { id: 'demo-backup', api: 'demo' },
      ],
      models: { primary: 'demo/keel-demo', fallbacks: ['demo-backup/keel-demo-backup'] },
    },
  });
  expect((await sendMessage(gateway, 'labels', { text: 'hello' })).status).toBe(200);
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
});

const names = Array.from({ length: 300 }, (_, index) =>
  index % 3 === 0
    ? `demo/made-up-${index}`
    : index % 3 === 1
      ? `demo/evil-${index}\u001b[2J\u001b]0;pwned\u0007`
      : `demo-backup/\u202egpj.${index}\u2066exe\u0085`,
);

describe('PUT …/model with names that are not configured', () => {
  it('answers 400 for each, naming it escaped, and keeps the configured model', async () => {
    for (const model of names) {
      const response = await gateway.fetch('/v1/sessions/labels/model', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model }),
      });
      expect(response.status, model).toBe(400);
      const text = await response.text();
      expect(text).not.toMatch(UNSAFE);
      expect(JSON.parse(text).error.message).not.toMatch(UNSAFE);
    }
    const summary = (await (await gateway.fetch('/v1/sessions/labels')).json()) as {
      selectedModel: string;
    };
    expect(summary.selectedModel).toBe('demo/keel-demo');
    // A configured one is still taken, and a turn runs on it.
    const chosen = await gateway.fetch('/v1/sessions/labels/model', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-backup/keel-demo-backup' }),
    });
    expect(chosen.status).toBe(200);
    expect((await sendMessage(gateway, 'labels', { text: 'again' })).body).toMatchObject({
      outcome: 'reply',
      model: 'demo-backup/keel-demo-backup',
    });
  });

  it('mints no series for them: /metrics names only configured models, with no raw controls', async () => {
    const metrics = await (await gateway.fetch('/metrics')).text();
    expect(metrics).not.toMatch(UNSAFE);
    expect(metrics).not.toContain('made-up');
    expect(metrics).not.toContain('evil');
    const models = new Set(
      [...metrics.matchAll(/model="([^"]*)"/g)].map((match) => match[1] as string),
    );
    expect([...models].sort()).toEqual(['keel-demo', 'keel-demo-backup']);
  });

  it('writes no raw control or bidi character to the log', () => {
    expect(gateway.output()).not.toMatch(UNSAFE);
  });
});
