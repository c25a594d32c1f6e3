import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { createGatewayRuntime, type GatewayRuntime } from './compose/create-runtime';
import { ConfigError } from './config/config-error';
import type { KeelConfig } from './config/config-schema';
import { createApp } from './http/create-app';
import { exposureProblem } from './http/host-guard';
import { registerConsoleRoutes } from './http/routes-console';
import { registerStatsRoutes } from './http/routes-stats';
import { logBudgetUnchecked } from './observe/log-budget-unchecked';
import { logTurnEvent } from './observe/log-turn-event';
import { recoverSessions } from './recover-sessions';
import { logToolServer } from './tools/log-tool-server';

export interface GatewayOptions {
  config: KeelConfig;
  /** Where relative paths of the configuration (plugins) resolve: the config file's folder. */
  baseDir?: string;
  /** A pino-compatible logger; `false` logs nothing. */
  logger: FastifyBaseLogger | false;
}

export interface Gateway {
  readonly app: FastifyInstance;
  readonly runtime: GatewayRuntime;
  /** Listens on the configured host and port (`port: 0` picks one); resolves with the URL. */
  listen(options?: { host?: string; port?: number }): Promise<string>;
  /** Answers what a crash left unanswered; runs in the background after `listen`. */
  readonly recovered: Promise<{ sessions: number; answered: number }>;
  /**
   * Graceful stop: refuses new messages, lets running turns finish within `shutdown.graceMs`,
   * stops the rest with the restart notice, releases every session, closes the server.
   */
  close(): Promise<void>;
}

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const state = { stopping: false };
  const { logger } = options;
  const runtime = await createGatewayRuntime(options.config, {
    ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
    ...(logger === false
      ? {}
      : {
          onEvent: (event) => logTurnEvent(logger, event),
          onToolServer: (notice) => logToolServer(logger, notice),
          onBudgetUnchecked: (key, error) => logBudgetUnchecked(logger, key, error),
          onPluginFailure: (plugin, where, error) =>
            logger.warn(
              { plugin, where, err: { type: (error as Error)?.name } },
              'plugin failed (isolated)',
            ),
        }),
  });
  const app = await createApp({
    runtime,
    logger,
    state,
    extend: async (app) => {
      registerStatsRoutes(app, runtime);
      await registerConsoleRoutes(app, runtime);
    },
  });
  const recovery = new AbortController();
  let startRecovery: () => void = () => undefined;
  const recovered = new Promise<{ sessions: number; answered: number }>((resolve) => {
    startRecovery = () => {
      // Shared sessions (PostgreSQL): a young unanswered message may be in a turn on another gateway.
      recoverSessions(runtime.storage, runtime.orchestrator, app.log, {
        signal: recovery.signal,
        ...(runtime.shared ? { minAgeMs: options.config.turn.timeoutMs + 60_000 } : {}),
      }).then(resolve, () => resolve({ sessions: 0, answered: 0 }));
    };
  });
  let closing: Promise<void> | undefined;

  return {
    app,
    runtime,
    recovered,
    async listen(listenOptions = {}) {
      const host = listenOptions.host ?? options.config.server.host;
      const exposure = exposureProblem(
        host,
        options.config.server.authToken,
        options.config.keys.length > 0,
      );
      if (exposure !== undefined) {
        throw new ConfigError({
          source: 'listen',
          problems: [{ path: 'server.host', message: exposure }],
        });
      }
      const url = await app.listen({
        host,
        port: listenOptions.port ?? options.config.server.port,
      });
      startRecovery();
      return url;
    },
    close() {
      closing ??= (async () => {
        state.stopping = true;
        recovery.abort();
        await Promise.all([
          runtime.orchestrator.shutdown({ graceMs: options.config.shutdown.graceMs }),
          app.close(),
        ]);
        await runtime.close();
      })();
      return closing;
    },
  };
}
