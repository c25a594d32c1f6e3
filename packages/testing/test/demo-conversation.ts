import Anthropic from '@anthropic-ai/sdk';
import type { ToolCall, ToolDefinition } from '@keel/spec';
import OpenAI from 'openai';
import type { MockApi, MockProvider } from '../src/mock-provider-types';

/** One model turn as the SDK returned it, reduced to text and tool calls. */
export interface DemoTurn {
  text: string;
  toolCalls: ToolCall[];
}

/** A user message, the tool calls it led to, the results given back, and the final answer. */
export interface DemoConversation {
  first: DemoTurn;
  /** Absent when the first answer made no tool call. */
  final?: DemoTurn;
}

export interface DemoConversationOptions {
  stream: boolean;
  /** Tools offered, in the spec's shape (converted to the api's wire format). */
  tools: readonly ToolDefinition[];
  /** What each tool "returns" when the model calls it. */
  run: (call: ToolCall) => string;
}

/**
 * Runs a tool-using exchange with the real SDK for `api`: the user's text, then (when the model
 * calls tools) their results in that api's wire format, then the model's answer.
 */
export async function demoConversation(
  mock: MockProvider,
  api: MockApi,
  text: string,
  options: DemoConversationOptions,
): Promise<DemoConversation> {
  if (api === 'anthropic-messages') return anthropicConversation(mock, text, options);
  if (api === 'openai-chat') return chatConversation(mock, text, options);
  return responsesConversation(mock, text, options);
}

async function anthropicConversation(
  mock: MockProvider,
  text: string,
  options: DemoConversationOptions,
): Promise<DemoConversation> {
  const client = new Anthropic({ apiKey: 'k', baseURL: mock.anthropicBaseUrl, maxRetries: 0 });
  const tools = options.tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
  }));
  const ask = async (messages: Anthropic.MessageParam[]) => {
    const body = { model: 'claude-demo', max_tokens: 256, messages, tools };
    const message = options.stream
      ? await client.messages.stream(body).finalMessage()
      : await client.messages.create(body);
    const turn: DemoTurn = { text: '', toolCalls: [] };
    for (const block of message.content) {
      if (block.type === 'text') turn.text += block.text;
      if (block.type === 'tool_use') {
        const input = block.input as Record<string, unknown>;
        turn.toolCalls.push({ id: block.id, name: block.name, input });
      }
    }
    return { message, turn };
  };
  const user: Anthropic.MessageParam = { role: 'user', content: text };
  const first = await ask([user]);
  if (first.turn.toolCalls.length === 0) return { first: first.turn };
  const results: Anthropic.ToolResultBlockParam[] = first.turn.toolCalls.map((call) => ({
    type: 'tool_result',
    tool_use_id: call.id,
    content: options.run(call),
  }));
  const final = await ask([
    user,
    { role: 'assistant', content: first.message.content },
    { role: 'user', content: results },
  ]);
  return { first: first.turn, final: final.turn };
}

async function chatConversation(
  mock: MockProvider,
  text: string,
  options: DemoConversationOptions,
): Promise<DemoConversation> {
  const client = new OpenAI({ apiKey: 'k', baseURL: mock.openaiBaseUrl, maxRetries: 0 });
  const tools: OpenAI.ChatCompletionTool[] = options.tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description ?? '',
      parameters: tool.inputSchema,
    },
  }));
  const ask = async (messages: OpenAI.ChatCompletionMessageParam[]) => {
    const body = { model: 'gpt-demo', messages, tools };
    const completion = options.stream
      ? await client.chat.completions.stream(body).finalChatCompletion()
      : await client.chat.completions.create(body);
    const message = completion.choices[0]!.message;
    const toolCalls = (message.tool_calls ?? []).flatMap((call) =>
      call.type === 'function'
        ? [{ id: call.id, name: call.function.name, input: JSON.parse(call.function.arguments) }]
        : [],
    );
    return { message, turn: { text: message.content ?? '', toolCalls } };
  };
  const user: OpenAI.ChatCompletionMessageParam = { role: 'user', content: text };
  const first = await ask([user]);
  if (first.turn.toolCalls.length === 0) return { first: first.turn };
  const assistant: OpenAI.ChatCompletionAssistantMessageParam = {
    role: 'assistant',
    content: first.message.content,
    tool_calls: first.message.tool_calls ?? [],
  };
  const results: OpenAI.ChatCompletionToolMessageParam[] = first.turn.toolCalls.map((call) => ({
    role: 'tool',
    tool_call_id: call.id,
    content: options.run(call),
  }));
  const final = await ask([user, assistant, ...results]);
  return { first: first.turn, final: final.turn };
}

async function responsesConversation(
  mock: MockProvider,
  text: string,
  options: DemoConversationOptions,
): Promise<DemoConversation> {
  const client = new OpenAI({ apiKey: 'k', baseURL: mock.openaiBaseUrl, maxRetries: 0 });
  const tools: OpenAI.Responses.FunctionTool[] = options.tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description ?? '',
    parameters: tool.inputSchema,
    strict: false,
  }));
  const ask = async (input: OpenAI.Responses.ResponseInput) => {
    const body = { model: 'gpt-demo', input, tools };
    const response = options.stream
      ? await client.responses.stream(body).finalResponse()
      : await client.responses.create(body);
    const calls = response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    const toolCalls = calls.map((call) => ({
      id: call.call_id,
      name: call.name,
      input: JSON.parse(call.arguments) as Record<string, unknown>,
    }));
    return { calls, turn: { text: response.output_text, toolCalls } };
  };
  const user: OpenAI.Responses.ResponseInputItem = { role: 'user', content: text };
  const first = await ask([user]);
  if (first.turn.toolCalls.length === 0) return { first: first.turn };
  const results: OpenAI.Responses.ResponseInputItem[] = first.turn.toolCalls.map((call) => ({
    type: 'function_call_output',
    call_id: call.id,
    output: options.run(call),
  }));
  const final = await ask([user, ...first.calls, ...results]);
  return { first: first.turn, final: final.turn };
}
