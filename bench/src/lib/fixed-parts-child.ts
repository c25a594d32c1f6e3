/**
 * The durable floor with the parts the project chose and keeps (`durable-proxy-child.ts` plus
 * them, `native-route.ts`): the request served by Fastify on Keel's native route (its body checked
 * by the gateway's JSON schema), the model called through `@keel/transport` (the official `openai`
 * SDK, streamed, as the gateway calls it), and the answer sent as JSON. Between them only the
 * durability rule: the message appended as a JSON line to the session's file, the reply appended
 * once the stream ends, the file fsynced once, then the answer sent.
 * Each session's conversation is kept in memory (no transcript read), and there is no lock, fence,
 * turn, failover, event or log line. Its heap is bounded as the gateway bounds its own
 * (`boundHeap`, launched with the same young generation). What Keel's gateway spends beyond this
 * is its own work. Prints `FIXED_PARTS_LISTENING <url>`. Run by `start-durable-proxy.ts`, in its
 * own process.
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '@keel/spec';
import { boundHeap } from '../../../apps/gateway/src/bound-heap';
import { appendLine, flushFile } from './durable-append';
import { serveNativeRoute, upstreamTransport } from './native-route';

boundHeap();
const [upstream = '', dir = '', model = ''] = process.argv.slice(2);
const transport = upstreamTransport(upstream, model);
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

await serveNativeRoute(
  'FIXED_PARTS',
  async (sessionId, text) => {
    const session = sessionOf(sessionId);
    const message: Message = { role: 'user', content: [{ type: 'text', text }] };
    appendLine(session.fd, JSON.stringify(message));
    let reply = '';
    for await (const event of transport.stream({ messages: [...session.messages, message] })) {
      if (event.type === 'text-delta') reply += event.text;
    }
    const answer: Message = { role: 'assistant', content: [{ type: 'text', text: reply }] };
    appendLine(session.fd, JSON.stringify(answer));
    await flushFile(session.fd);
    session.messages.push(message, answer);
    return { outcome: 'reply', text: reply, model, provider: 'mock' };
  },
  () => {
    for (const session of sessions.values()) closeSync(session.fd);
  },
);
