import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, beforeEach } from 'vitest';
import { createMockProvider } from '../src/mock-provider';
import type { MockProvider } from '../src/mock-provider-types';

/** The mock provider of the running test and real SDK clients pointed at it (no SDK retries). */
export interface MockSetup {
  readonly provider: MockProvider;
  readonly anthropic: Anthropic;
  readonly openai: OpenAI;
}

/**
 * Registers `beforeEach` / `afterEach` hooks that start a fresh mock provider (and clients) for
 * every test of the calling file and close it afterwards. Read the members inside tests only.
 */
export function useMockProvider(): MockSetup {
  let current: MockSetup | undefined;
  beforeEach(async () => {
    const provider = await createMockProvider();
    current = {
      provider,
      anthropic: new Anthropic({ apiKey: 'k', baseURL: provider.anthropicBaseUrl, maxRetries: 0 }),
      openai: new OpenAI({ apiKey: 'k', baseURL: provider.openaiBaseUrl, maxRetries: 0 }),
    };
  });
  afterEach(async () => {
    await current?.provider.close();
    current = undefined;
  });
  const running = (): MockSetup => {
    if (current === undefined) throw new Error('useMockProvider: read it inside a test');
    return current;
  };
  return {
    get provider() {
      return running().provider;
    },
    get anthropic() {
      return running().anthropic;
    },
    get openai() {
      return running().openai;
    },
  };
}

/** What `call` rejected with; fails the test when it resolves. */
export async function failureOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail, but it succeeded');
}

/** Iterates a stream, returning what arrived before it ended or threw, and what it threw. */
export async function drain<T>(stream: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of stream) items.push(item);
  } catch (error) {
    return { items, error };
  }
  return { items, error: undefined };
}
