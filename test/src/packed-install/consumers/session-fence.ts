// @keel/session-fence alone: a durable transcript in a folder, a fence released around a "model
// call", an owned write that does not trip it and a foreign one that does.
import {
  createSessionFence,
  createTranscriptStore,
  type MessageEntry,
  SessionTakeoverError,
} from '@keel/session-fence';

export interface SessionFenceInput {
  /** An empty folder for the transcripts. */
  sessionsDir: string;
}

const message = (id: string, role: 'user' | 'assistant', text: string): MessageEntry => ({
  type: 'message',
  id,
  messageId: id,
  timestamp: new Date(0).toISOString(),
  role,
  content: [{ type: 'text', text }],
});

export async function consume(input: SessionFenceInput): Promise<unknown> {
  const store = createTranscriptStore({ sessionsDir: input.sessionsDir });
  await store.append('chat', [message('m1', 'user', 'hello')]);

  const fence = createSessionFence({ storage: store, sessionId: 'chat' });
  await fence.acquire();
  await fence.release(); // the model call runs here, without the lock
  await fence.append([message('m2', 'user', 'and one more thing')]); // owned: steering
  await fence.reacquire();
  await fence.append([message('m3', 'assistant', 'done')]);
  await fence.release();
  await store.append('chat', [message('m4', 'user', 'written by someone else')]);
  let takeover = '';
  try {
    await fence.reacquire();
  } catch (error) {
    if (!SessionTakeoverError.isInstance(error)) throw error;
    takeover = `${error.keelKind} at ${error.phase}`;
  } finally {
    await fence.end();
  }
  const { entries } = await store.read('chat');
  return {
    messages: entries.flatMap((entry) => (entry.type === 'message' ? [entry.id] : [])),
    takeover,
  };
}
