#!/usr/bin/env node
import { boundHeap } from './bound-heap';
import { effectiveModelSettings } from './compose/model-settings';
import { ProviderSetupError } from './compose/provider-setup-error';
import { ConfigError } from './config/config-error';
import { loadConfig } from './config/load-config';
import { secretsOf } from './config/secrets-of';
import { createGateway } from './create-gateway';
import { exposureProblem } from './http/host-guard';
import { createGatewayLogger } from './observe/create-logger';
import { createRedactor } from './observe/create-redactor';
import { createPrettyLogStream } from './observe/pretty-log-stream';
import { routeConsoleOutput } from './observe/route-console-output';
import { startTracing } from './observe/start-tracing';
import { warnUnreachableProviders } from './observe/warn-unreachable-providers';
import { parseCliArguments, USAGE } from './parse-args';
import { PluginLoadError } from './plugins/plugin-error';

// Before the gateway allocates much: its resident memory follows what it keeps (issue 20).
const heapFlag = boundHeap();

/** Set once the configuration is known: what a start-up failure message must not show. */
let redact: (text: string) => string = (text) => text;

/** `keel-gateway`: loads the configuration, serves, and stops gracefully on SIGTERM / SIGINT. */
async function main(): Promise<number> {
  let args: ReturnType<typeof parseCliArguments>;
  try {
    args = parseCliArguments(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`keel-gateway: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let loaded: Awaited<ReturnType<typeof loadConfig>>;
  try {
    loaded = await loadConfig(args.config === undefined ? {} : { path: args.config });
  } catch (error) {
    if (ConfigError.isInstance(error)) {
      process.stderr.write(`keel-gateway: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const { config } = loaded;
  const host = args.host ?? config.server.host;
  const exposure = exposureProblem(host, config.server.authToken, config.keys.length > 0);
  if (exposure !== undefined) {
    process.stderr.write(`keel-gateway: ${exposure}\n`);
    return 1;
  }
  const secrets = secretsOf(config, process.env);
  redact = createRedactor(secrets);
  const pretty = (args.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json')) === 'pretty';
  const logger = createGatewayLogger({
    level: config.logging.level,
    secrets,
    ...(pretty
      ? {
          destination: createPrettyLogStream({
            color: process.stdout.isTTY === true && !process.env['NO_COLOR'],
          }),
        }
      : {}),
  });
  // SDK notices (a model's deprecation) and process warnings become log records.
  routeConsoleOutput(logger);
  // OTLP export of the turn and attempt spans when the OpenTelemetry environment asks for it.
  const tracing = await startTracing(process.env);
  if (tracing !== undefined)
    logger.info({ endpoint: tracing.endpoint }, 'exporting traces (OTLP/HTTP)');
  let gateway: Awaited<ReturnType<typeof createGateway>>;
  try {
    gateway = await createGateway({ config, logger, baseDir: loaded.baseDir });
  } catch (error) {
    if (PluginLoadError.isInstance(error) || ProviderSetupError.isInstance(error)) {
      process.stderr.write(`keel-gateway: ${redact(error.message)}\n`);
      await tracing?.shutdown();
      return 1;
    }
    throw error;
  }
  for (const settings of effectiveModelSettings(config)) logger.info(settings, 'model settings');
  const url = await gateway.listen({
    ...(args.host === undefined ? {} : { host: args.host }),
    ...(args.port === undefined ? {} : { port: args.port }),
  });
  // The listening line is always written (unless logging is silent): scripts wait for it.
  const announce = config.logging.level === 'silent' ? logger : logger.child({}, { level: 'info' });
  const consoleUrl = config.server.console ? `${url}/console` : undefined;
  announce.info(
    {
      url,
      source: loaded.source,
      primary: config.models.primary,
      fallbacks: config.models.fallbacks,
      sessionsDir: config.sessionsDir,
      requestCeiling: gateway.runtime.orchestrator.requestCeiling,
      console: consoleUrl ?? false,
      // The V8 flag the gateway set to bound its heap, or none when node was given its own.
      heap: heapFlag ?? 'as node was started',
    },
    `keel gateway listening on ${url}${consoleUrl === undefined ? '' : `, console at ${consoleUrl}`}${
      loaded.source === 'demo' ? ' (embedded demo model, offline)' : ''
    }`,
  );
  void warnUnreachableProviders(config, logger);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'stopping: finishing running turns');
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      gateway.close().then(resolve, (error) => {
        logger.error({ err: { type: (error as Error).name } }, 'stopped with an error');
        resolve();
      });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  await tracing?.shutdown();
  logger.info('stopped');
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `keel-gateway: failed to start: ${redact(String((error as Error).message))}\n`,
    );
    process.exitCode = 1;
  },
);
