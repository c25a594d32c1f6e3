// The body of `POST /v1/chat/completions` as Keel accepts it: the Chat Completions fields it can
// honour, validated so that a bad body is a 400 naming its field; unknown fields are ignored.
import { z } from 'zod';
import { plainChatRequest } from './plain-chat-request';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
/** A message's text: a string, or text parts (images and audio are not supported). */
const textContent = z.union([z.string(), z.array(textPart)]);

const toolCall = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: textContent }),
  z.object({ role: z.literal('developer'), content: textContent }),
  z.object({ role: z.literal('user'), content: textContent }),
  z
    .object({
      role: z.literal('assistant'),
      content: textContent.nullish(),
      tool_calls: z.array(toolCall).nullish(),
    })
    .refine(
      (assistant) => assistant.content != null || (assistant.tool_calls ?? []).length > 0,
      'needs content or tool_calls',
    ),
  z.object({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: textContent }),
]);

const functionTool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
});

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().min(1),
      description: z.string().nullish(),
      schema: z.record(z.string(), z.unknown()).nullish(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

const tokens = z.number().int().positive().nullish();

export const chatRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  tools: z.array(functionTool).nullish(),
  tool_choice: toolChoice.nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: tokens,
  max_completion_tokens: tokens,
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  response_format: responseFormat.nullish(),
  user: z.string().nullish(),
  n: z
    .number()
    .int()
    .nullish()
    .refine((n) => n == null || n === 1, 'must be 1 (one choice per request)'),
});

export type ChatRequest = z.output<typeof chatRequestSchema>;
export type ChatMessage = ChatRequest['messages'][number];

/** A parsed body, or the first problem: the field's path and a sentence about it. */
export type ParsedChatRequest =
  | { ok: true; body: ChatRequest }
  | { ok: false; param: string | null; message: string };

/** Validates a body; the message names the field and never echoes the input. */
export function parseChatRequest(body: unknown): ParsedChatRequest {
  const plain = plainChatRequest(body);
  if (plain !== undefined) return { ok: true, body: plain };
  const result = chatRequestSchema.safeParse(body);
  if (result.success) return { ok: true, body: result.data };
  const issue = result.error.issues[0];
  const param = issue === undefined || issue.path.length === 0 ? null : issue.path.join('.');
  const problem = issue?.message ?? 'is not valid';
  return {
    ok: false,
    param,
    message: param === null ? `Invalid body: ${problem}` : `Invalid body: ${param}: ${problem}`,
  };
}
