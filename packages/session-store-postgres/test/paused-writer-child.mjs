// A gateway in its own process that freezes in the middle of a write: it takes the session's
// lease, writes once, then starts a second append and stops itself (SIGSTOP) right after that
// append's transaction locked the session's fencing counter — a transaction left open by a
// frozen process. Once continued, it reports what became of that append. One JSON line per step.
// Usage: node paused-writer-child.mjs <databaseUrl> <sessionId> <ttlMs>
import { createPostgresSessionStorage } from '../dist/index.js';
import { freezingPool } from './freezing-pool.mjs';

const [databaseUrl, sessionId, ttlMs] = process.argv.slice(2);
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const entry = (text) => ({
  type: 'message',
  id: `child-${text}`,
  messageId: `child-${text}`,
  timestamp: new Date().toISOString(),
  role: 'assistant',
  content: [{ type: 'text', text }],
});

let writing = false;
const pool = freezingPool(databaseUrl, /FOR SHARE/, () => writing, say);
const storage = createPostgresSessionStorage({ pool, lease: { ttlMs: Number(ttlMs) } });
const lease = await storage.lease(sessionId);
await storage.append(sessionId, [entry('before the freeze')], { lease });
say({ ready: lease.token });
writing = true;
try {
  await storage.append(sessionId, [entry('in the frozen write')], { lease });
  say({ appended: true });
} catch (error) {
  say({ failed: error.name, kind: error.keelKind ?? null });
}
await storage.close();
await pool.end();
