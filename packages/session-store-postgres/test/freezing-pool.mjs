// A `pg` pool for the children of the freeze tests: once `armed()` says so, the first statement
// matching `pattern` (sent by the store as a promise query) stops this process (SIGSTOP) right
// after it ran, having printed `{ frozen: true }`: a process frozen inside an open transaction.
import pg from 'pg';

export function freezingPool(connectionString, pattern, armed, say) {
  const pool = new pg.Pool({ connectionString });
  pool.on('error', () => {});
  let frozen = false;
  pool.on('acquire', (client) => {
    if (client.unfrozenQuery !== undefined) return;
    client.unfrozenQuery = client.query;
    client.query = function query(...args) {
      if (typeof args.at(-1) === 'function' || frozen || !armed() || !pattern.test(args[0])) {
        return client.unfrozenQuery(...args);
      }
      return client.unfrozenQuery(...args).then((result) => {
        frozen = true;
        say({ frozen: true });
        process.kill(process.pid, 'SIGSTOP');
        return result;
      });
    };
  });
  return pool;
}
