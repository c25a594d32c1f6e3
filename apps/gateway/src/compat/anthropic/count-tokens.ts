// `POST /v1/messages/count_tokens` (Claude Code calls it): an estimate of the request's input
// tokens by @keel/compaction's character-based estimator (about 4 characters a token for Latin
// text, fewer for other scripts), not a provider's tokenizer.
import { estimateTextTokens } from '@keel/compaction';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { mayName } from '../../keys/client-of';
import type { CompatContext } from '../compat-context';
import { resolveRoute } from '../resolve-route';
import { sendAnthropicError } from './anthropic-error';
import {
  AnthropicRequestError,
  type CountTokensBody,
  countTokensBody,
  parseOrThrow,
} from './anthropic-request';
import { conversation, toolDefinitions } from './to-model-request';

/** The estimate: system prompt, every block's text (a tool call's name and input), the tools. */
export function estimateInputTokens(body: CountTokensBody): number {
  const { system, messages } = conversation(body);
  const tools = toolDefinitions(body);
  let tokens = system === undefined ? 0 : estimateTextTokens(system);
  for (const message of messages) {
    if (typeof message.content === 'string') {
      tokens += estimateTextTokens(message.content);
      continue;
    }
    for (const block of message.content) {
      if (block.type === 'text') tokens += estimateTextTokens(block.text);
      else if (block.type === 'tool_use')
        tokens += estimateTextTokens(block.name + JSON.stringify(block.input));
      else tokens += estimateTextTokens(block.content);
    }
  }
  if (tools !== undefined) tokens += estimateTextTokens(JSON.stringify(tools));
  return Math.max(1, tokens);
}

export async function answerCountTokens(
  context: CompatContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  let body: CountTokensBody;
  let inputTokens: number;
  try {
    body = parseOrThrow(countTokensBody, request.body ?? {});
    inputTokens = estimateInputTokens(body);
  } catch (error) {
    if (!(error instanceof AnthropicRequestError)) throw error;
    return sendAnthropicError(reply, {
      status: 400,
      type: 'invalid_request_error',
      message: error.message,
    });
  }
  if (
    !mayName(request, body.model) ||
    resolveRoute(context.runtime.config, body.model) === undefined
  ) {
    return sendAnthropicError(reply, {
      status: 404,
      type: 'not_found_error',
      message: `model: "${body.model.slice(0, 100)}" is not a route or configured model of this gateway`,
    });
  }
  return reply.send({ input_tokens: inputTokens });
}
