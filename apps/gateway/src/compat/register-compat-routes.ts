import type { FastifyInstance } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { registerAnthropicRoutes } from './anthropic/register-anthropic-routes';
import { createCompatContext } from './compat-context';
import { registerOpenAIRoutes } from './openai/register-openai-routes';

/**
 * The OpenAI- and Anthropic-compatible endpoints (DESIGN.md "Compatible endpoints"): any client
 * of those APIs reaches Keel's failover by changing its base URL. Each wire registers its routes
 * here with the shared context.
 */
export function registerCompatRoutes(app: FastifyInstance, runtime: GatewayRuntime): void {
  const context = createCompatContext(runtime);
  registerAnthropicRoutes(app, context);
  registerOpenAIRoutes(app, context);
  void context;
}
