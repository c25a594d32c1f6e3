// Starts a server, prints its pid and data directory as one JSON line, then idles until killed.
import { startPostgresServer } from '../src/postgres-server';

const server = await startPostgresServer();
process.stdout.write(`${JSON.stringify({ pid: server.pid, dataDir: server.dataDir })}\n`);
setInterval(() => {}, 60_000);
