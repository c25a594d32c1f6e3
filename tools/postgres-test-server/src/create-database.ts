import { randomUUID } from 'node:crypto';
import pg from 'pg';

export interface CreatedDatabase {
  name: string;
  /** Its connection string: the admin URL with the database name in its path. */
  url: string;
  /** Drops it, ending every connection to it first. */
  drop(): Promise<void>;
}

/** Creates a fresh database (named `keel_<prefix>_<random>`) on the server `adminUrl` points at. */
export async function createDatabase(adminUrl: string, prefix = 'test'): Promise<CreatedDatabase> {
  const name = `keel_${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await asAdmin(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => asAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function asAdmin(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
