// @keel/spec alone: types and version constants. A model port written against its types alone.
import type { ModelEvent, ModelPort } from '@keel/spec';
import { SPEC_VERSION, TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';

export async function consume(): Promise<unknown> {
  const echo: ModelPort = {
    specificationVersion: SPEC_VERSION,
    provider: 'echo',
    api: 'echo',
    capabilities: { runsOwnTools: false, bindsSessions: false },
    async *stream(request): AsyncIterable<ModelEvent> {
      const last = request.messages.at(-1);
      yield {
        type: 'text-delta',
        text: `echo: ${typeof last?.content === 'string' ? last.content : ''}`,
      };
      yield { type: 'finish', reason: 'stop' };
    },
  };
  const events: ModelEvent[] = [];
  for await (const event of echo.stream({ messages: [{ role: 'user', content: 'hi' }] })) {
    events.push(event);
  }
  return { specVersion: SPEC_VERSION, transcriptVersion: TRANSCRIPT_FORMAT_VERSION, events };
}
