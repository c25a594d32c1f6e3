/**
 * The file store keeps a session's lease (its `<id>.lock` file) between turns while nobody asks;
 * closing the gateway's runtime lets those leases go, so a gateway that stops without exiting
 * (an embedding app, a test) leaves no lock behind for the next one to wait out.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../config/config-schema';
import { createApp } from '../http/create-app';
import { createGatewayRuntime } from './create-runtime';

const SECRET = 'close-lets-go-secret-01';
const headers = { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' };

let root: string | undefined;
afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  root = undefined;
});

describe('closing the gateway runtime', () => {
  it('lets go of the leases the file store kept between turns', async () => {
    root = await mkdtemp(join(tmpdir(), 'keel-close-leases-'));
    const sessionsDir = join(root, 'sessions');
    const config = configSchema.parse({
      sessionsDir,
      providers: [{ id: 'demo', api: 'demo' }],
      models: { primary: 'demo/keel-demo' },
      keys: [{ id: 'client', secret: SECRET }],
    });
    const runtime = await createGatewayRuntime(config);
    const app = await createApp({ runtime, logger: false, state: { stopping: false } });
    const sent = await app.inject({
      method: 'POST',
      url: '/v1/sessions/s-kept/messages',
      headers,
      payload: { text: 'hello there' },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const locks = async () => (await readdir(sessionsDir)).filter((name) => name.endsWith('.lock'));
    // Kept between turns: the lock is still there once the answer came.
    expect(await locks()).toEqual(['s-kept.lock']);
    await app.close();
    await runtime.close();
    expect(await locks()).toEqual([]);
  });
});
