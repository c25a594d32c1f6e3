/**
 * A gateway on the file store without MCP servers never loads the PostgreSQL store's package or
 * the MCP client: together about 5 MiB of heap that every full collection would walk (issue 20).
 * Each package here counts the times it is loaded; one imported at the top of any module the
 * gateway is made of would be loaded as that module is.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configSchema } from '../config/config-schema';

const loaded = vi.hoisted(() => ({ postgres: 0, mcp: 0 }));
vi.mock('@keel/session-store-postgres', async (original) => {
  loaded.postgres += 1;
  return original();
});
vi.mock('@modelcontextprotocol/sdk/client/index.js', async (original) => {
  loaded.mcp += 1;
  return original();
});

let root: string | undefined;
afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  root = undefined;
});

describe('packages loaded on demand', () => {
  it('a file-store gateway without MCP servers answers without loading PostgreSQL or MCP', async () => {
    root = await mkdtemp(join(tmpdir(), 'keel-on-demand-'));
    const { createGateway } = await import('../create-gateway');
    const config = configSchema.parse({
      sessionsDir: join(root, 'sessions'),
      providers: [{ id: 'demo', api: 'demo' }],
      models: { primary: 'demo/keel-demo' },
      // Client keys and budgets too: both have a PostgreSQL form.
      keys: [{ id: 'client', secret: 'on-demand-secret-0001', rpm: 100 }],
      budgets: { limits: { 'demo/keel-demo': { rpm: 100 } } },
    });
    const gateway = await createGateway({ config, logger: false });
    try {
      const sent = await gateway.app.inject({
        method: 'POST',
        url: '/v1/sessions/s-on-demand/messages',
        headers: {
          authorization: 'Bearer on-demand-secret-0001',
          'content-type': 'application/json',
        },
        payload: { text: 'hello there' },
      });
      expect(sent.statusCode, sent.body).toBe(200);
    } finally {
      await gateway.close();
    }
    expect(loaded).toEqual({ postgres: 0, mcp: 0 });
  });

  it('loads the PostgreSQL package for a configuration that keeps sessions there', async () => {
    const { loadPostgres } = await import('./postgres-module');
    const before = loaded.postgres;
    const onFiles = configSchema.parse({
      providers: [{ id: 'demo', api: 'demo' }],
      models: { primary: 'demo/keel-demo' },
    });
    expect(await loadPostgres(onFiles)).toBeUndefined();
    const onPostgres = configSchema.parse({
      providers: [{ id: 'demo', api: 'demo' }],
      models: { primary: 'demo/keel-demo' },
      storage: { kind: 'postgres', url: 'postgres://keel@127.0.0.1:1/keel' },
    });
    const postgres = await loadPostgres(onPostgres);
    expect(typeof postgres?.createPostgresSessionStorage).toBe('function');
    expect(loaded.postgres).toBe(before + 1);
  });
});
