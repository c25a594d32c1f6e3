/**
 * What the floor children that stand in for Keel's gateway share: Keel's native route
 * (`POST /v1/sessions/:sessionId/messages`, its body checked by the gateway's own JSON schema)
 * served by Fastify, answered as JSON, and the model called through `@keel/transport` with the
 * official `openai` SDK (streamed, as the gateway calls it). Each child adds to these what it
 * measures: the two durable appends (`fixed-parts-child.ts`), the session fence
 * (`fenced-parts-child.ts`), the orchestrator's turn (`turn-core-child.ts`).
 */
import { createTransport, type Transport } from '@keel/transport';
import Fastify from 'fastify';
import { messageBody } from '../../../apps/gateway/src/http/schemas';

/** The answer of the native route, as the gateway gives it for a reply. */
export interface NativeAnswer {
  outcome: string;
  text: string;
  model?: string | undefined;
  provider?: string | undefined;
}

/** The transport the gateway makes for the bench's one mock model (Chat Completions, streamed). */
export function upstreamTransport(baseUrl: string, model: string): Transport {
  return createTransport({
    api: 'openai-chat',
    provider: 'mock',
    apiKey: 'sk-bench',
    model,
    baseUrl,
    maxTokens: 64,
  });
}

/**
 * Serves the native route with `answer` on a loopback port, prints `<tag>_LISTENING <url>`, and
 * on SIGTERM runs `close`, closes the server and exits.
 */
export async function serveNativeRoute(
  tag: string,
  answer: (sessionId: string, text: string) => Promise<NativeAnswer>,
  close: () => void = () => undefined,
): Promise<void> {
  const app = Fastify({ logger: false });
  app.post<{ Params: { sessionId: string }; Body: { text: string } }>(
    '/v1/sessions/:sessionId/messages',
    {
      schema: {
        params: {
          type: 'object',
          required: ['sessionId'],
          properties: { sessionId: { type: 'string', minLength: 1, maxLength: 200 } },
        },
        // The gateway's own schema for the route's body.
        body: messageBody,
      },
    },
    (request) => answer(request.params.sessionId, request.body.text),
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(`${tag}_LISTENING ${url}`);
  process.on('SIGTERM', () => {
    close();
    void app.close().then(() => process.exit(0));
  });
}
