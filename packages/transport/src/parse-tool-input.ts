import { MalformedResponseError } from './transport-error';

/** Parses streamed tool-call arguments: empty means `{}`; anything but a JSON object is an error. */
export function parseToolInput(
  json: string,
  toolName: string,
  id: string,
): Record<string, unknown> {
  if (json.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new MalformedResponseError({
      message: `Tool call ${toolName} (${id}) streamed arguments that are not valid JSON.`,
      cause: error,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedResponseError({
      message: `Tool call ${toolName} (${id}) streamed arguments that are not a JSON object.`,
    });
  }
  return value as Record<string, unknown>;
}
