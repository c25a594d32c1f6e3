// The OpenAI-compatible endpoints (issue 19): `POST /v1/chat/completions` and `GET /v1/models`.
import type { FastifyInstance } from 'fastify';
import type { CompatContext } from '../compat-context';
import { registerChatCompletionsRoute } from './routes-chat-completions';
import { registerModelsRoute } from './routes-models';

export function registerOpenAIRoutes(app: FastifyInstance, context: CompatContext): void {
  registerChatCompletionsRoute(app, context);
  registerModelsRoute(app, context);
}
