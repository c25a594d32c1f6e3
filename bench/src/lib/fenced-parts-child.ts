/**
 * The floor with the fixed parts (`fixed-parts-child.ts`) plus Keel's session fence over its file
 * store (`@keel/session-fence`, fsync on), used for each message as the orchestrator's turn uses
 * it: a fence made for the turn, acquired (the lease the session's last turn kept, the
 * transcript's state checked), the turn's start and the message appended unflushed (`with-next`),
 * the fence released for the model call and reacquired after it, the reply and the turn's end
 * appended and flushed (one fsync, covering the message: a JSON answer in a session no client
 * follows), the answer sent, then the fence ended. Each session's conversation is kept in memory
 * (no transcript read, no context built), and there is no turn: no failover, events, provider
 * health or compaction. What the orchestrator's turn adds beyond this is `turn-core-child.ts`.
 * Prints `FENCED_PARTS_LISTENING <url>`. Run by `start-durable-proxy.ts`, in its own process.
 */
import { randomUUID } from 'node:crypto';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { Message, MessageEntry, TurnEntry } from '@keel/spec';
import { boundHeap } from '../../../apps/gateway/src/bound-heap';
import { serveNativeRoute, upstreamTransport } from './native-route';

boundHeap();
const [upstream = '', dir = '', model = ''] = process.argv.slice(2);
const transport = upstreamTransport(upstream, model);
const storage = createTranscriptStore({ sessionsDir: dir, fsync: true });
const conversations = new Map<string, Message[]>();
/** Each session's last fence's end: a session's next turn starts after it, as in the orchestrator. */
const ended = new Map<string, Promise<void>>();

const stamp = () => ({ id: randomUUID(), timestamp: new Date().toISOString() });

function messageEntry(role: 'user' | 'assistant', text: string, turnId: string): MessageEntry {
  const base = stamp();
  return {
    type: 'message',
    ...base,
    messageId: base.id,
    turnId,
    role,
    content: [{ type: 'text', text }],
  };
}

await serveNativeRoute('FENCED_PARTS', async (sessionId, text) => {
  await ended.get(sessionId);
  const messages = conversations.get(sessionId) ?? [];
  const turnId = randomUUID();
  const fence = createSessionFence({ storage, sessionId });
  try {
    await fence.acquire();
    const message = messageEntry('user', text, turnId);
    const start: TurnEntry = {
      type: 'turn',
      ...stamp(),
      phase: 'start',
      turnId,
      messageId: message.messageId,
    };
    await fence.append([message, start], { flush: 'with-next' });
    await fence.release();
    let reply = '';
    for await (const event of transport.stream({
      messages: [...messages, { role: 'user', content: message.content }],
    })) {
      if (event.type === 'text-delta') reply += event.text;
    }
    await fence.reacquire();
    const answer = messageEntry('assistant', reply, turnId);
    const end: TurnEntry = {
      type: 'turn',
      ...stamp(),
      phase: 'end',
      turnId,
      messageId: message.messageId,
      outcome: 'reply',
      model: `mock/${model}`,
      provider: 'mock',
    };
    await fence.append([answer, end]);
    messages.push(
      { role: 'user', content: message.content },
      { role: 'assistant', content: answer.content },
    );
    conversations.set(sessionId, messages);
    return { outcome: 'reply', text: reply, model: `mock/${model}`, provider: 'mock' };
  } finally {
    // Its last check cannot change the answer: the answer goes out first, as the gateway's does.
    ended.set(
      sessionId,
      fence.end().catch(() => undefined),
    );
  }
});
