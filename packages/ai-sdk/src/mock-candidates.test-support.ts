/**
 * Test support: real AI SDK providers (`@ai-sdk/anthropic`, `@ai-sdk/openai`) pointed at the
 * loopback mock provider of `@keel/testing`, one API key per profile, and an event recorder.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterEach } from 'vitest';
import type { KeelModelEvent } from './keel-model-options';

// The providers warn about the mock's unknown model names; the tests read results, not logs.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const open: MockProvider[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((provider) => provider.close()));
});

/** A mock provider closed after the test. */
export async function startMock(options: Parameters<typeof createMockProvider>[0] = {}) {
  const provider = await createMockProvider(options);
  open.push(provider);
  return provider;
}

export function anthropicModel(
  provider: MockProvider,
  model: string,
  apiKey: string,
): LanguageModelV4 {
  return createAnthropic({ apiKey, baseURL: `${provider.anthropicBaseUrl}/v1` })(model);
}

export function openaiChatModel(
  provider: MockProvider,
  model: string,
  apiKey: string,
): LanguageModelV4 {
  return createOpenAI({ apiKey, baseURL: provider.openaiBaseUrl }).chat(model);
}

/** `onEvent` that keeps every event, and the decisions as `label reason from→to` lines. */
export function recordEvents() {
  const events: KeelModelEvent[] = [];
  const name = (target: { providerId: string; model: string; profileId: string } | undefined) =>
    target === undefined ? '-' : `${target.model}#${target.profileId}`;
  return {
    events,
    onEvent: (event: KeelModelEvent) => {
      events.push(event);
    },
    decisions: () =>
      events.flatMap((event) =>
        event.type === 'decision'
          ? [`${event.label} ${event.reason} ${name(event.from)}→${name(event.to)}`]
          : [],
      ),
  };
}

/** `api model apiKey behavior` per request the mock received. */
export function requestLines(provider: MockProvider): string[] {
  return provider.requests.map(
    (request) => `${request.api} ${request.model} ${request.apiKey} ${request.behavior}`,
  );
}
