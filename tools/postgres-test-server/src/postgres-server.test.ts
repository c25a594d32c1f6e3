import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createDatabase } from './create-database';
import { startPostgresServer } from './postgres-server';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('startPostgresServer', () => {
  it('starts a server that takes connections and databases; stop() ends it and removes its files', async () => {
    const server = await startPostgresServer();
    expect(isRunning(server.pid)).toBe(true);
    const database = await createDatabase(server.adminUrl);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query('SELECT current_database() AS name, current_user AS role');
    await client.end();
    expect(rows[0]).toEqual({ name: database.name, role: 'postgres' });
    await database.drop();
    await server.stop();
    expect(isRunning(server.pid)).toBe(false);
    expect(existsSync(server.dataDir)).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    'never outlives the process that started it, even one killed with SIGKILL',
    async () => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          fileURLToPath(new URL('../test/start-server-child.ts', import.meta.url)),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      try {
        const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
        const { pid, dataDir } = JSON.parse(line) as { pid: number; dataDir: string };
        expect(isRunning(pid)).toBe(true);
        child.kill('SIGKILL');
        await until(() => !isRunning(pid));
        await rm(dataDir, { recursive: true, force: true });
      } finally {
        child.kill('SIGKILL');
      }
    },
  );
});
