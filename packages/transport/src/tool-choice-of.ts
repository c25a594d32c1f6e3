// Every wire checks a request's `toolChoice` against its `tools` the same way before mapping it,
// so a choice no provider could honour is refused here, never sent or silently dropped.
import type { ModelRequest, ToolChoice } from '@keel/spec';
import { UnsupportedRequestError } from './transport-error';

/**
 * The tool choice to send, or `undefined` to send none. Without tools, `auto` and `none` say
 * nothing (and some servers reject a `tool_choice` without `tools`), so they are left out;
 * `required`, or a named tool that is not among the request's tools, is refused.
 */
export function toolChoiceOf(request: ModelRequest): ToolChoice | undefined {
  const choice = request.toolChoice;
  if (choice === undefined) return undefined;
  const tools = request.tools ?? [];
  if (choice === 'auto' || choice === 'none') return tools.length === 0 ? undefined : choice;
  if (choice === 'required') {
    if (tools.length > 0) return choice;
    throw new UnsupportedRequestError({
      message: '`toolChoice: required` needs at least one tool in `tools`.',
    });
  }
  if (tools.some((tool) => tool.name === choice.name)) return choice;
  throw new UnsupportedRequestError({
    message: `\`toolChoice\` names the tool "${choice.name}", which is not in \`tools\`.`,
  });
}
