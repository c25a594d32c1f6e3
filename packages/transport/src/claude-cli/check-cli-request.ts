// The Claude Code CLI answers in text and runs only its own tools: a request that needs a
// client's tools or a JSON answer is refused here, before the CLI starts, never silently degraded.
import type { ModelRequest } from '@keel/spec';
import { UnsupportedRequestError } from '../transport-error';

/**
 * Throws `UnsupportedRequestError` (naming the field) for what the CLI cannot honour: `tools`
 * (the CLI cannot offer a caller's tools), a `toolChoice` other than `auto` / `none` and a
 * `responseFormat` other than `text`. Sampling fields it cannot pass (`temperature`, `topP`,
 * `stop`, `maxTokens`) are not checked: they are ignored.
 */
export function checkCliRequest(request: ModelRequest): void {
  if (request.tools !== undefined && request.tools.length > 0) {
    throw new UnsupportedRequestError({
      message: "The claude-cli API runs its own tools and cannot offer the request's `tools`.",
    });
  }
  const choice = request.toolChoice;
  if (choice !== undefined && choice !== 'auto' && choice !== 'none') {
    const named = choice === 'required' ? 'required' : `tool ${choice.name}`;
    throw new UnsupportedRequestError({
      message: `The claude-cli API cannot honour \`toolChoice: ${named}\` (it offers no tools).`,
    });
  }
  const format = request.responseFormat;
  if (format !== undefined && format.type !== 'text') {
    throw new UnsupportedRequestError({
      message: `The claude-cli API cannot honour \`responseFormat: ${format.type}\`; only text.`,
    });
  }
}
