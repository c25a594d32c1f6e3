// @keel/ai-sdk with the real `ai` and its providers: Anthropic is overloaded on both keys, so each
// call rotates the key once and falls over to OpenAI — generated and streamed alike.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createKeelModel, KeelModelConfigError, type KeelModelEvent } from '@keel/ai-sdk';
import { generateText, streamText } from 'ai';

interface AiSdkInput {
  anthropicBaseUrl: string;
  openaiBaseUrl: string;
  model: string;
}

export async function consume(input: AiSdkInput): Promise<unknown> {
  const decisions: string[] = [];
  const claude = (apiKey: string) =>
    createAnthropic({ apiKey, baseURL: `${input.anthropicBaseUrl}/v1` })(input.model);
  const make = () =>
    createKeelModel({
      candidates: [
        claude('key-1'),
        createOpenAI({ apiKey: 'sk-1', baseURL: input.openaiBaseUrl }).chat(`${input.model}-b`),
      ],
      profiles: { spare: [claude('key-2')] },
      onEvent: (event: KeelModelEvent) => {
        if (event.type === 'decision') decisions.push(`${event.label} ${event.reason}`);
      },
    });
  const generated = await generateText({ model: make(), prompt: 'hi' });
  const streamed = streamText({ model: make(), prompt: 'hi' });
  let configError = '';
  try {
    createKeelModel({ candidates: [] });
  } catch (error) {
    configError = KeelModelConfigError.isInstance(error) ? error.name : 'not refused';
  }
  return {
    generated: generated.text,
    modelId: generated.response.modelId,
    streamed: await streamed.text,
    decisions,
    configError,
  };
}
