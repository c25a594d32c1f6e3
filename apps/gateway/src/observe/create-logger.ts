import { sanitizeForLog } from '@keel/error-classification';
import type { FastifyRequest } from 'fastify';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { createRedactor } from './create-redactor';

export interface GatewayLoggerOptions {
  level: string;
  /** Values never written, wherever they appear in a line: every configured key and token. */
  secrets: readonly string[];
  /** Default standard output. */
  destination?: DestinationStream;
}

/**
 * The gateway's pino logger: JSON lines with a `service` field, credentials-bearing fields
 * redacted by path, request URLs and hosts sanitized (escapes, bidi controls), and every
 * configured secret replaced in the written line, whichever field it slipped into.
 */
export function createGatewayLogger(options: GatewayLoggerOptions): Logger {
  const redact = createRedactor(options.secrets);
  const settings: LoggerOptions = {
    level: options.level,
    base: { service: 'keel-gateway' },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["proxy-authorization"]',
        'req.headers["x-api-key"]',
        'req.headers.cookie',
        'headers.authorization',
        'headers["x-api-key"]',
        'apiKey',
        '*.apiKey',
        'authToken',
        '*.authToken',
      ],
      censor: '[redacted]',
    },
    serializers: { req: serializeRequest },
    hooks: {
      streamWrite: redact,
    },
  };
  return options.destination === undefined ? pino(settings) : pino(settings, options.destination);
}

function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: sanitizeForLog(request.url, { maxLength: 300 }),
    host: sanitizeForLog(request.host, { maxLength: 100 }),
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
