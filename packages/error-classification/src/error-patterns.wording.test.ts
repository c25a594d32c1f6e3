import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';

/*
 * Real provider wording that only one alternative of a wording pattern recognizes: no status and no
 * code come with it, so if that alternative is narrowed the message is left unclassified.
 */
const WORDING_KINDS: ReadonlyArray<readonly [source: string, message: string, kind: string]> = [
  // Anthropic 400 billing_error body for an organization over its monthly spend limit.
  ['anthropic spend limit', 'Your organization has reached its monthly spend limit.', 'billing'],
  // llama.cpp / LM Studio when n_keep is larger than the loaded context.
  [
    'llama.cpp n_keep',
    'the number of tokens to keep from the initial prompt is greater than the context length',
    'context_overflow',
  ],
  // Groq 404 for a retired model (code model_decommissioned dropped by a log line).
  [
    'groq decommissioned',
    'The model `mixtral-8x7b-32768` has been decommissioned and is no longer supported.',
    'model_not_found',
  ],
  // Groq 401 body message.
  ['groq invalid key', 'Invalid API Key', 'auth'],
  // Anthropic 401 body message.
  ['anthropic invalid key', 'invalid x-api-key', 'auth'],
  // Gemini 400 API_KEY_INVALID message for an expired key.
  ['gemini expired key', 'API key expired. Please renew the API key.', 'auth'],
  // A proxy's 401 status text logged on its own.
  ['proxy unauthorized', 'Unauthorized', 'auth'],
];

describe('real wording classifies without a status or code', () => {
  it.each(WORDING_KINDS)('%s', (_source, message, kind) => {
    expect(classifyError({ message })).toMatchObject({ kind });
  });
});
