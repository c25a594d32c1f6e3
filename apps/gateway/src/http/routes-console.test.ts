import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayRuntime, type GatewayRuntime } from '../compose/create-runtime';
import { configSchema, type KeelConfigInput } from '../config/config-schema';
import { createApp } from './create-app';
import { registerConsoleRoutes } from './routes-console';
import { registerStatsRoutes } from './routes-stats';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** The real app (token hook and all) with the console's routes over `assetsDir`. */
async function startApp(
  server: KeelConfigInput['server'],
  assetsDir: string | undefined,
): Promise<{ app: FastifyInstance; runtime: GatewayRuntime }> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-console-routes-'));
  const config = configSchema.parse({
    server,
    sessionsDir: join(dir, 'sessions'),
    providers: [{ id: 'demo', api: 'demo' }],
    models: { primary: 'demo/keel-demo' },
  });
  const runtime = await createGatewayRuntime(config);
  const app = await createApp({
    runtime,
    logger: false,
    state: { stopping: false },
    extend: async (instance) => {
      registerStatsRoutes(instance, runtime);
      await registerConsoleRoutes(instance, runtime, assetsDir === undefined ? {} : { assetsDir });
    },
  });
  cleanup.push(async () => {
    await app.close();
    await runtime.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { app, runtime };
}

async function builtConsole(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-console-assets-'));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'console.js'), 'console.log("console");\n');
  await writeFile(join(dir, 'console.css'), 'body { margin: 0 }\n');
  await writeFile(join(dir, 'notes.txt'), 'not served\n');
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('GET /console', () => {
  it('serves the page and its files with a strict content security policy', async () => {
    const { app } = await startApp({}, await builtConsole());
    const page = await app.inject({ url: '/console' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<script type="module" src="/console/console.js"></script>');
    expect(page.body).not.toContain('data-auth');

    const script = await app.inject({ url: '/console/console.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.body).toBe('console.log("console");\n');
    const again = await app.inject({
      url: '/console/console.js',
      headers: { 'if-none-match': String(script.headers['etag']) },
    });
    expect(again.statusCode).toBe(304);
    expect((await app.inject({ url: '/console/console.css' })).headers['content-type']).toBe(
      'text/css; charset=utf-8',
    );
    expect((await app.inject({ url: '/console/' })).headers['location']).toBe('/console');
  });

  it('serves only the built files: no other name, no path out of the folder', async () => {
    const { app } = await startApp({}, await builtConsole());
    expect((await app.inject({ url: '/console/notes.txt' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/console/app.js' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/console/..%2Fpackage.json' })).statusCode).toBe(400);
    const dots = await app.inject({ url: '/console/%2e%2e/package.json' });
    expect([400, 404]).toContain(dots.statusCode);
    expect(dots.body).not.toContain('@keel/gateway');
  });

  it('with a token: the page and files load without it (they hold no data), nothing else does', async () => {
    const { app } = await startApp({ authToken: 'route-secret' }, await builtConsole());
    const page = await app.inject({ url: '/console' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="en" data-auth="bearer">');
    expect(page.body).not.toContain('route-secret');
    expect((await app.inject({ url: '/console/console.js' })).statusCode).toBe(200);
    for (const url of ['/v1/sessions', '/v1/stats/rates', '/v1/providers/health', '/metrics']) {
      expect((await app.inject({ url })).statusCode, url).toBe(401);
      const allowed = await app.inject({ url, headers: { authorization: 'Bearer route-secret' } });
      expect(allowed.statusCode, url).toBe(200);
    }
    expect((await app.inject({ url: '/console/notes.txt' })).statusCode).toBe(404);
  });

  it('is off with server.console: false; the rates stay (they are API)', async () => {
    const { app } = await startApp({ console: false }, await builtConsole());
    expect((await app.inject({ url: '/console' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/console/console.js' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/v1/stats/rates' })).statusCode).toBe(200);
  });

  it('says how to build it when the console was not built', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'keel-console-empty-'));
    cleanup.push(() => rm(empty, { recursive: true, force: true }));
    const { app } = await startApp({}, empty);
    const page = await app.inject({ url: '/console' });
    expect(page.statusCode).toBe(503);
    expect(page.json()).toMatchObject({ error: { code: 'unavailable' } });
  });
});

describe('GET /v1/stats/rates', () => {
  it('counts requests, failed attempts and fallbacks from turn events, per provider', async () => {
    const { app, runtime } = await startApp({}, await builtConsole());
    const base = { sessionId: 's1', turnId: 't1', at: Date.now() };
    const primary = { providerId: 'anthropic', profileId: 'a', model: 'claude' };
    const backup = { providerId: 'openai', profileId: 'main', model: 'gpt' };
    runtime.events.record({
      ...base,
      type: 'attempt-start',
      attempt: 1,
      target: primary,
      probe: false,
    });
    runtime.events.record({
      ...base,
      type: 'attempt-error',
      attempt: 1,
      target: primary,
      kind: 'overloaded',
      status: 529,
    });
    runtime.events.record({
      ...base,
      type: 'decision',
      label: 'fallback_model',
      from: primary,
      to: backup,
      reason: 'overloaded',
    });
    runtime.events.record({
      ...base,
      type: 'attempt-start',
      attempt: 2,
      target: backup,
      probe: false,
    });

    const answer = await app.inject({ url: '/v1/stats/rates?minutes=5' });
    expect(answer.statusCode).toBe(200);
    const rates = answer.json();
    expect(rates.bucketMs).toBe(10_000);
    expect(rates.buckets).toHaveLength(30);
    const totals = rates.buckets.reduce(
      (sum: Record<string, number>, bucket: Record<string, number>) => ({
        requests: (sum['requests'] ?? 0) + (bucket['requests'] ?? 0),
        errors: (sum['errors'] ?? 0) + (bucket['errors'] ?? 0),
        fallbacks: (sum['fallbacks'] ?? 0) + (bucket['fallbacks'] ?? 0),
      }),
      {},
    );
    expect(totals).toEqual({ requests: 2, errors: 1, fallbacks: 1 });
    expect(rates.providers).toEqual([
      {
        providerId: 'anthropic',
        requests: 1,
        errors: 1,
        fallbacks: 1,
        errorKinds: { overloaded: 1 },
      },
      { providerId: 'openai', requests: 1, errors: 0, fallbacks: 0, errorKinds: {} },
    ]);
    expect((await app.inject({ url: '/v1/stats/rates?minutes=61' })).statusCode).toBe(400);
    expect((await app.inject({ url: '/v1/stats/rates?minutes=0' })).statusCode).toBe(400);
  });
});
