import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  name: string;
  /** Connection string of the new database (the admin URL with its database name replaced). */
  url: string;
  drop(): Promise<void>;
}

/** The admin connection: BENCH_DATABASE_URL, then DATABASE_URL, then the local default. */
export function adminUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.BENCH_DATABASE_URL || env.DATABASE_URL || DEFAULT_ADMIN_URL;
}

/** Same server and credentials as `adminUrl`, another database. */
export function withDatabase(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/** The URL without its password, for printing. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '<unparseable database url>';
  }
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates `bench_<random>` on the admin connection's server. `drop()` is idempotent. */
export async function createBenchDatabase(adminUrl: string, prefix = 'bench'): Promise<BenchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe database name: ${name}`);
  try {
    await withAdmin(adminUrl, (client) => client.query(`create database "${name}"`));
  } catch (err) {
    throw new Error(`cannot create database ${name} through ${redactUrl(adminUrl)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  let dropped = false;
  return {
    name,
    url: withDatabase(adminUrl, name),
    async drop() {
      if (dropped) return;
      dropped = true;
      // WITH (FORCE) ends the sessions still connected (PostgreSQL 13+).
      await withAdmin(adminUrl, (client) => client.query(`drop database if exists "${name}" with (force)`));
    },
  };
}
