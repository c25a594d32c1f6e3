import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';

/*
 * The wording variants a pattern names on purpose, each optional part once, with no status and no
 * code: no provider is quoted here (error-patterns.wording.test.ts has the real messages), so each
 * message is the shortest one that only that variant recognizes. Narrow the variant and the message
 * is left to a later rule or to none.
 */
const VARIANTS: ReadonlyArray<readonly [variant: string, message: string, kind: string]> = [
  // CONTENT_POLICY_TEXT `content[ _]polic(?:y|ies)`: the space (ChatGPT's moderation notice).
  ['content policy', 'This content may violate our content policy.', 'content_policy'],
  // CONTEXT_OVERFLOW_TEXT `exceeds? (?:the )?(?:model'?s? )?(?:available )?context`: `exceed`
  // without its s, no `the `, `model` without apostrophe or s, no `available `.
  [
    'exceed model context',
    'a prompt of 9000 tokens would exceed model context (8192)',
    'context_overflow',
  ],
  // … and no `model's ` at all.
  ['exceeds the context', 'the input exceeds the context of this deployment', 'context_overflow'],
  // TIMEOUT_TEXT `timed? ?out`: `time out`, two words, no d.
  ['time out', 'request time out, please try again', 'timeout'],
];

describe('each wording variant a pattern names classifies on its own', () => {
  it.each(VARIANTS)('%s', (_variant, message, kind) => {
    expect(classifyError({ message })).toMatchObject({ kind });
  });
});
