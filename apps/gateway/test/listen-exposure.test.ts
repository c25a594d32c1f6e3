// A gateway made from code (not the CLI) keeps the same rule as `keel-gateway`: without a token it
// listens on loopback addresses only.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/config-error';
import { configSchema } from '../src/config/config-schema';
import { createGateway, type Gateway } from '../src/create-gateway';

let gateway: Gateway | undefined;
let dir: string | undefined;
afterEach(async () => {
  await gateway?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  gateway = undefined;
  dir = undefined;
});

async function gatewayWith(server: Record<string, unknown>): Promise<Gateway> {
  dir = await mkdtemp(join(tmpdir(), 'keel-listen-'));
  const config = configSchema.parse({
    sessionsDir: join(dir, 'sessions'),
    server: { port: 0, console: false, ...server },
    providers: [
      {
        id: 'mock',
        api: 'anthropic-messages',
        baseUrl: 'http://127.0.0.1:9/',
        profiles: [{ id: 'k', apiKey: 'sk-keeltest-listen' }],
      },
    ],
    models: { primary: 'mock/m' },
  });
  gateway = await createGateway({ config, logger: false });
  return gateway;
}

describe('createGateway().listen without a token', () => {
  it('refuses an address other machines reach, naming server.authToken, and listens on nothing', async () => {
    const made = await gatewayWith({});
    const error = await made.listen({ host: '0.0.0.0' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toContain('server.authToken');
    expect(made.app.server.listening).toBe(false);
  });

  it('listens on a loopback address', async () => {
    const made = await gatewayWith({});
    expect(await made.listen({ host: '127.0.0.1' })).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('listens anywhere once it has a token', async () => {
    const made = await gatewayWith({ authToken: 'a-token-long-enough' });
    await made.listen({ host: '0.0.0.0' });
    expect(made.app.server.address()).toMatchObject({ address: '0.0.0.0' });
  });
});
