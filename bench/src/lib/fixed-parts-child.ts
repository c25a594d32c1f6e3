/**
 * The durable floor with the parts the project chose and keeps (`durable-proxy-child.ts` plus
 * them): the request served by Fastify on Keel's native route (`POST /v1/sessions/:id/messages`,
 * its body checked by the gateway's JSON schema), the model called through `@keel/transport` (the
 * official `openai` SDK, streamed, as the gateway calls it), and the answer sent as JSON. Between
 * them only the durability rule: the message appended as a JSON line to the session's file, the
 * reply appended once the stream ends, the file fsynced once, then the answer sent.
 * Each session's conversation is kept in memory (no transcript read), and there is no lock, fence,
 * turn, failover, event or log line. Its heap is bounded as the gateway bounds its own
 * (`boundHeap`, launched with the same young generation). What Keel's gateway spends beyond this
 * is its own work. Prints `FIXED_PARTS_LISTENING <url>`. Run by `start-durable-proxy.ts`, in its
 * own process.
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '@keel/spec';
import { createTransport } from '@keel/transport';
import Fastify from 'fastify';
import { boundHeap } from '../../../apps/gateway/src/bound-heap';
import { messageBody } from '../../../apps/gateway/src/http/schemas';
import { appendLine, flushFile } from './durable-append';

boundHeap();
const [upstream = '', dir = '', model = ''] = process.argv.slice(2);
const transport = createTransport({
  api: 'openai-chat',
  provider: 'mock',
  apiKey: 'sk-bench',
  model,
  baseUrl: upstream,
  maxTokens: 64,
});
const sessions = new Map<string, { fd: number; messages: Message[] }>();

function sessionOf(id: string): { fd: number; messages: Message[] } {
  let session = sessions.get(id);
  if (session === undefined) {
    const fd = openSync(join(dir, `${id.replace(/[^\w-]/g, '_')}.jsonl`), 'a');
    session = { fd, messages: [] };
    sessions.set(id, session);
  }
  return session;
}

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
  async (request) => {
    const session = sessionOf(request.params.sessionId);
    const message: Message = {
      role: 'user',
      content: [{ type: 'text', text: request.body.text }],
    };
    appendLine(session.fd, JSON.stringify(message));
    let text = '';
    for await (const event of transport.stream({
      messages: [...session.messages, message],
    })) {
      if (event.type === 'text-delta') text += event.text;
    }
    const reply: Message = { role: 'assistant', content: [{ type: 'text', text }] };
    appendLine(session.fd, JSON.stringify(reply));
    await flushFile(session.fd);
    session.messages.push(message, reply);
    return { outcome: 'reply', text, model, provider: 'mock' };
  },
);

const url = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`FIXED_PARTS_LISTENING ${url}`);
process.on('SIGTERM', () => {
  for (const session of sessions.values()) closeSync(session.fd);
  void app.close().then(() => process.exit(0));
});
