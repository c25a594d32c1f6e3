// A gateway in its own process that freezes in the middle of a provider health report: it stops
// itself (SIGSTOP) right after the report's transaction locked the model's breaker row. Once
// continued, it reports what became of that report. One JSON line per step.
// Usage: node paused-health-child.mjs <databaseUrl> <schema> <transactionIdleTimeoutMs>
import { createPostgresProviderHealth } from '../dist/index.js';
import { freezingPool } from './freezing-pool.mjs';

const [databaseUrl, schema, idleMs] = process.argv.slice(2);
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const target = { providerId: 'anthropic', profileId: 'one', model: 'sonnet' };

let reporting = false;
const pool = freezingPool(databaseUrl, /FOR UPDATE/, () => reporting, say);
const health = createPostgresProviderHealth({
  pool,
  schema,
  transactionIdleTimeoutMs: Number(idleMs),
});
// The breaker row exists (a first report made it), so the frozen report holds its lock.
await health.report({ type: 'failure', target, kind: 'server_error', probe: false });
say({ ready: true });
reporting = true;
try {
  await health.report({ type: 'overloaded', target, retryAfterMs: 600_000 });
  say({ reported: true });
} catch (error) {
  say({ failed: error.name });
}
await health.close();
await pool.end();
