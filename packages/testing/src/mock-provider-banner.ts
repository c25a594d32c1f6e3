import type { MockProvider } from './mock-provider-types';

/**
 * What `keel-mock-provider` prints once it listens: its origin, then the base URL each official
 * SDK needs (the `openai` client wants the `/v1` prefix, `@anthropic-ai/sdk` the bare origin),
 * then one line per optional mode that is on.
 */
export function mockProviderBanner(
  provider: Pick<MockProvider, 'url' | 'openaiBaseUrl' | 'anthropicBaseUrl'>,
  modes: readonly string[] = [],
): string {
  return [
    `keel-mock-provider listening on ${provider.url}`,
    `  openai             baseURL: ${provider.openaiBaseUrl}  (or OPENAI_BASE_URL)`,
    `  @anthropic-ai/sdk  baseURL: ${provider.anthropicBaseUrl}  (or ANTHROPIC_BASE_URL, as for the Claude Code CLI)`,
    ...modes.map((mode) => `  ${mode}`),
  ].join('\n');
}
