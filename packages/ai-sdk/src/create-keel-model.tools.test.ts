import { mockFaults } from '@keel/testing';
import { generateObject, generateText, stepCountIs, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKeelModel } from './create-keel-model';
import {
  anthropicModel,
  openaiChatModel,
  recordEvents,
  requestLines,
  startMock,
} from './mock-candidates.test-support';

describe('tool calls and structured output across a fallback', () => {
  it('a tool call answered by one provider is continued by the fallback of another', async () => {
    const mock = await startMock({ strict: true });
    mock.enqueue({
      behavior: { type: 'ok', toolCalls: [{ name: 'lookup', input: { q: 'keel' } }] },
      match: { model: 'claude-a' },
    });
    mock.enqueue({ behavior: mockFaults.overloaded(), match: { model: 'claude-a' } });
    mock.enqueue({
      behavior: { type: 'ok', text: 'Keel is a monorepo.' },
      match: { model: 'gpt-b' },
    });
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      onEvent: recorder.onEvent,
    });
    const looked: string[] = [];

    const result = await generateText({
      model,
      prompt: 'what is keel?',
      tools: {
        lookup: tool({
          description: 'Looks a word up.',
          inputSchema: z.object({ q: z.string() }),
          execute: async ({ q }) => {
            looked.push(q);
            return `${q}: a monorepo`;
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });

    expect(result.text).toBe('Keel is a monorepo.');
    expect(looked).toEqual(['keel']);
    expect(requestLines(mock)).toEqual([
      'anthropic-messages claude-a key-1 ok',
      'anthropic-messages claude-a key-1 http-error',
      'openai-chat gpt-b key-o ok',
    ]);
    expect(recorder.decisions()).toEqual([
      'fallback_model overloaded claude-a#primary→gpt-b#primary',
    ]);
    const messages = mock.requests[2]?.messages as Array<{
      role: string;
      tool_call_id?: string;
      tool_calls?: Array<{ id: string }>;
    }>;
    const call = messages.find((message) => message.role === 'assistant')?.tool_calls?.[0];
    const answer = messages.find((message) => message.role === 'tool');
    expect(call?.id).toMatch(/^toolu_mock_/);
    expect(answer?.tool_call_id).toBe(call?.id);
    expect(result.steps.map((step) => step.response.modelId)).toEqual(['claude-a', 'gpt-b']);
  });

  it('generateObject gets its object from the fallback model', async () => {
    const mock = await startMock();
    mock.enqueue({
      behavior: mockFaults.serverError(503),
      match: { model: 'claude-a' },
      times: Infinity,
    });
    mock.enqueue({
      behavior: { type: 'ok', text: '{"city":"Oslo","population":717710}' },
      match: { model: 'gpt-b' },
    });
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });

    const result = await generateObject({
      model,
      schema: z.object({ city: z.string(), population: z.number() }),
      prompt: 'the capital of Norway',
    });

    expect(result.object).toEqual({ city: 'Oslo', population: 717710 });
    expect(requestLines(mock)).toEqual([
      'anthropic-messages claude-a key-1 http-error',
      'anthropic-messages claude-a key-1 http-error',
      'openai-chat gpt-b key-o ok',
    ]);
    expect(result.response.modelId).toBe('gpt-b');
  });
});
