import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyChildLoggerFactory } from './lazy-child-logger';

type Line = Record<string, unknown>;

/** A pino logger writing JSON lines into `lines`, its `child` calls counted. */
function recordingLogger(level: string) {
  const lines: Line[] = [];
  const logger = pino({ level }, { write: (text: string) => lines.push(JSON.parse(text) as Line) });
  const children = vi.spyOn(logger, 'child');
  return { logger, lines, children };
}

const apps: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

function appWith(logger: pino.Logger, lazy = true) {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    ...(lazy ? { childLoggerFactory: lazyChildLoggerFactory } : {}),
  });
  apps.push(app);
  app.get('/quiet', async () => 'ok');
  app.get('/warns', async (request) => {
    request.log.warn({ detail: 1 }, 'careful');
    return 'ok';
  });
  app.get('/nested', async (request) => {
    request.log.child({ step: 'inner' }).warn('from a child');
    return 'ok';
  });
  app.get('/infos', async (request) => {
    request.log.info('told');
    return request.log.level;
  });
  app.get('/own-level', { logLevel: 'debug' }, async (request) => {
    request.log.debug('route level');
    return 'ok';
  });
  return app;
}

const withoutTimes = (lines: Line[]) =>
  lines.map(({ time: _time, responseTime: _elapsed, ...rest }) => rest);

describe('lazyChildLoggerFactory', () => {
  it('makes no child for a request that writes nothing at an enabled level', async () => {
    const { logger, lines, children } = recordingLogger('warn');
    const app = appWith(logger);
    // Fastify makes one child of its own as it starts (its serializers); not a request's.
    await app.ready();
    children.mockClear();
    for (let index = 0; index < 3; index += 1)
      expect((await app.inject('/quiet')).statusCode).toBe(200);
    expect(await app.inject('/infos')).toMatchObject({ statusCode: 200, body: 'warn' });
    expect(children).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    // A line at an enabled level makes the child, once.
    await app.inject('/warns');
    expect(children).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([expect.objectContaining({ reqId: 'req-5', msg: 'careful' })]);
  });

  it('writes what an eager child writes, request id included', async () => {
    const lazy = recordingLogger('info');
    const eager = recordingLogger('info');
    for (const [recording, isLazy] of [
      [lazy, true],
      [eager, false],
    ] as const) {
      const app = appWith(recording.logger, isLazy);
      for (const url of ['/quiet', '/warns', '/nested', '/infos', '/own-level'])
        expect((await app.inject(url)).statusCode).toBe(200);
    }
    expect(lazy.lines.length).toBeGreaterThan(10);
    expect(withoutTimes(lazy.lines)).toEqual(withoutTimes(eager.lines));
    expect(lazy.lines).toContainEqual(
      expect.objectContaining({ reqId: 'req-2', detail: 1, msg: 'careful', level: 40 }),
    );
    expect(lazy.lines).toContainEqual(
      expect.objectContaining({ reqId: 'req-3', step: 'inner', msg: 'from a child' }),
    );
    expect(lazy.lines).toContainEqual(
      expect.objectContaining({ reqId: 'req-5', msg: 'route level', level: 20 }),
    );
  });

  it('a route with its own level writes at that level, below the parent’s', async () => {
    const { logger, lines } = recordingLogger('warn');
    const app = appWith(logger);
    await app.inject('/own-level');
    expect(lines).toContainEqual(
      expect.objectContaining({ reqId: 'req-1', msg: 'route level', level: 20 }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ reqId: 'req-1', msg: 'incoming request', level: 30 }),
    );
  });

  it('follows the parent level as it changes, and a level set on the request', async () => {
    const { logger, lines } = recordingLogger('warn');
    const app = appWith(logger);
    app.get('/set-level', async (request) => {
      request.log.level = 'debug';
      request.log.debug('now debug');
      return 'ok';
    });
    await app.inject('/infos');
    expect(lines.filter((line) => line['msg'] === 'told')).toHaveLength(0);
    logger.level = 'info';
    await app.inject('/infos');
    expect(lines.filter((line) => line['msg'] === 'told')).toHaveLength(1);
    logger.level = 'warn';
    await app.inject('/set-level');
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'now debug', level: 20 }));
  });
});
