// A gateway in its own process, for the pause test: takes the session's lease, writes under it,
// then waits for "append" on stdin and tries one more write with the same lease. Every step is
// printed as one JSON line. Usage: node lease-holder-child.mjs <databaseUrl> <sessionId> <ttlMs>
import { createInterface } from 'node:readline';
import { createPostgresSessionStorage } from '../dist/index.js';

const [databaseUrl, sessionId, ttlMs] = process.argv.slice(2);
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const storage = createPostgresSessionStorage({ connectionString: databaseUrl });
const entry = (text) => ({
  type: 'message',
  id: `child-${text}`,
  messageId: `child-${text}`,
  timestamp: new Date().toISOString(),
  role: 'assistant',
  content: [{ type: 'text', text }],
});

const lease = await storage.lease(sessionId, {
  ttlMs: Number(ttlMs),
  onEvent: (event) => say({ event: event.type }),
});
await storage.append(sessionId, [entry('before the pause')], { lease });
say({ ready: lease.token });

for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'append') continue;
  try {
    await storage.append(sessionId, [entry('after the pause')], { lease });
    say({ appended: true });
  } catch (error) {
    say({ refused: error.change, kind: error.keelKind, name: error.name });
  }
  break;
}
await lease.release();
await storage.close();
