import type { ModelRequest } from '@keel/spec';

/** One request that uses everything the request type can express (shared by conversion tests). */
export const fullRequest: ModelRequest = {
  model: 'model-from-request',
  system: 'You are terse.',
  messages: [
    { role: 'user', content: 'What is the weather in Oslo and Rome?' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking both.' },
        { type: 'tool_use', id: 'call_oslo', name: 'weather', input: { city: 'Oslo' } },
        { type: 'tool_use', id: 'call_rome', name: 'weather', input: { city: 'Rome', unit: 'C' } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool_result', toolUseId: 'call_oslo', content: '-3 C, snow' },
        { type: 'tool_result', toolUseId: 'call_rome', content: 'station offline', isError: true },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Thanks.' },
        { type: 'text', text: 'Summarise.' },
      ],
    },
  ],
  tools: [
    {
      name: 'weather',
      description: 'Current weather for a city',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string' } },
        required: ['city'],
      },
    },
  ],
  maxTokens: 321,
  temperature: 0.25,
  stop: ['END'],
};
