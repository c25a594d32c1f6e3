import type { ToolCallResult } from '@keel/spec';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * An MCP tool result as the one string a `tool_result` carries: text parts as they are, other
 * parts (images, audio, resources) described in a line, structured content as JSON when the
 * tool sent nothing else. `isError` is kept: a tool's own failure is the model's to read.
 */
export function mcpResultText(result: CallToolResult): ToolCallResult {
  const parts = (result.content ?? []).map((part) => {
    switch (part.type) {
      case 'text':
        return part.text;
      case 'image':
      case 'audio':
        return `[${part.type} ${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes]`;
      case 'resource':
        return 'text' in part.resource
          ? part.resource.text
          : `[resource ${part.resource.uri}${part.resource.mimeType === undefined ? '' : ` ${part.resource.mimeType}`}]`;
      case 'resource_link':
        return `[resource link ${part.uri}${part.name === undefined ? '' : ` ${part.name}`}]`;
      default:
        return `[${(part as { type: string }).type}]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  return { content: parts.join('\n'), ...(result.isError === true ? { isError: true } : {}) };
}
