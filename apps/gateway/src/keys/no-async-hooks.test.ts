/**
 * No async hook on the session path: on Node 20 an `AsyncLocalStorage`, once used, enables a
 * promise hook that every promise of the process pays for. Session messages and a compaction
 * charged to a key run through the real app over the embedded demo model, and Node's count of
 * enabled `init` hooks (what `async_hooks.createHook(…).enable()` and `AsyncLocalStorage` raise)
 * must still read 0 afterwards.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayRuntime } from '../compose/create-runtime';
import { configSchema } from '../config/config-schema';
import { createApp } from '../http/create-app';

const SECRET = 'hookless-secret-0001';
const headers = { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' };

interface AsyncWrap {
  async_hook_fields: Uint32Array;
  constants: { kInit: number };
}

/** How many enabled async hooks have an `init` callback (Node's own counter). */
function enabledInitHooks(): number {
  const wrap = (process as unknown as { binding(name: string): AsyncWrap }).binding('async_wrap');
  return wrap.async_hook_fields[wrap.constants.kInit] ?? Number.NaN;
}

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('the session path', () => {
  it('enables no async hook over session messages and a charged compaction', async () => {
    expect(enabledInitHooks()).toBe(0);
    const root = await mkdtemp(join(tmpdir(), 'keel-no-async-hooks-'));
    const config = configSchema.parse({
      sessionsDir: join(root, 'sessions'),
      providers: [{ id: 'demo', api: 'demo' }],
      models: { primary: 'demo/keel-demo' },
      // Every message but the newest may be compacted.
      compaction: { keepRecentTokens: 1 },
      keys: [{ id: 'client', secret: SECRET }],
    });
    const runtime = await createGatewayRuntime(config);
    const app = await createApp({ runtime, logger: false, state: { stopping: false } });
    cleanup.push(async () => {
      await app.close();
      await runtime.close();
      await rm(root, { recursive: true, force: true });
    });
    const charged: string[] = [];
    runtime.compactionUsage.subscribe(({ sessionId }) => charged.push(sessionId));
    const send = (text: string) =>
      app.inject({ method: 'POST', url: '/v1/sessions/s-1/messages', headers, payload: { text } });
    for (const text of ['first message here', 'second message here', 'third message here']) {
      expect((await send(text)).statusCode).toBe(200);
    }
    const compacted = await app.inject({
      method: 'POST',
      url: '/v1/sessions/s-1/compact',
      headers,
      payload: {},
    });
    expect(compacted.statusCode, compacted.body).toBe(200);
    expect((await send('after the compaction')).statusCode).toBe(200);
    // The compaction's calls were made and reported with their session.
    expect(charged.length).toBeGreaterThan(0);
    expect(new Set(charged)).toEqual(new Set(['s-1']));
    expect(enabledInitHooks()).toBe(0);
  });
});
