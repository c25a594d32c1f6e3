// The Anthropic-compatible endpoints (issue 19): `POST /v1/messages` (also `?beta=true`, as Claude
// Code sends it) and `POST /v1/messages/count_tokens`, every error of them in Anthropic's shape.
import type { FastifyInstance } from 'fastify';
import type { CompatContext } from '../compat-context';
import { answerMessages } from './answer-messages';
import { renderAnthropicError } from './anthropic-error';
import { answerCountTokens } from './count-tokens';

export function registerAnthropicRoutes(app: FastifyInstance, context: CompatContext): void {
  const config = { wireError: renderAnthropicError };
  app.post('/v1/messages', { config }, (request, reply) => answerMessages(context, request, reply));
  app.post('/v1/messages/count_tokens', { config }, (request, reply) =>
    answerCountTokens(context, request, reply),
  );
}
