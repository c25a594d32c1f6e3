// The body of `POST /v1/messages` as Anthropic's Messages API defines it, checked with zod so a bad
// request is a 400 that names its field. Blocks and tools are checked one by one when translated
// (`toModelRequest`), so an unsupported kind of block gets its own sentence, not a union's.
import { z } from 'zod';

/** A block of content, checked further by its `type` when translated. */
const looseBlock = z.looseObject({ type: z.string() });

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

/** What `POST /v1/messages/count_tokens` reads: the request without `max_tokens`. */
export const countTokensBody = z.looseObject({
  model: z.string().min(1),
  /** A string or text blocks; `cache_control` is accepted and ignored. */
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  /** `system` messages (as Claude Code sends them) are folded into the system prompt. */
  messages: z
    .array(
      z.looseObject({
        role: z.enum(['user', 'assistant', 'system']),
        content: z.union([z.string(), z.array(looseBlock)]),
      }),
    )
    .min(1),
  tools: z.array(z.looseObject({ type: z.string().optional() })).optional(),
  tool_choice: z
    .discriminatedUnion('type', [
      z.looseObject({ type: z.literal('auto') }),
      z.looseObject({ type: z.literal('any') }),
      z.looseObject({ type: z.literal('none') }),
      z.looseObject({ type: z.literal('tool'), name: z.string().min(1) }),
    ])
    .optional(),
});

/** The Messages request; `metadata`, `thinking` and other fields are accepted and ignored. */
export const messagesBody = countTokensBody.extend({
  max_tokens: z.number().int().positive(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
});

export type CountTokensBody = z.output<typeof countTokensBody>;
export type MessagesBody = z.output<typeof messagesBody>;

/** A bad request: the field it is about and why, for a `400 invalid_request_error`. */
export class AnthropicRequestError extends Error {
  constructor(field: string, reason: string) {
    super(field === '' ? reason : `${field}: ${reason}`);
    this.name = 'AnthropicRequestError';
  }
}

/** Parses `value` with `schema`, or throws the first problem as an `AnthropicRequestError`. */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, at = ''): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = [at, ...(issue?.path ?? []).map(String)].filter((part) => part !== '').join('.');
  throw new AnthropicRequestError(path, describeIssue(issue));
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return 'is not valid';
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  return issue.message;
}
