import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Admin connection for creating and dropping test databases (the DATABASE_URL's server). */
export function adminUrl(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  u.pathname = '/postgres';
  return u.toString();
}

export function withDatabase(databaseUrl: string, name: string): string {
  const u = new URL(databaseUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

export function randomDbName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export async function adminQuery(databaseUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl(databaseUrl) });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** CREATE DATABASE from a template, retrying while another copy of the same template is running. */
export async function createDatabaseFrom(databaseUrl: string, name: string, template?: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(databaseUrl, `create database "${name}"${template ? ` template "${template}"` : ''}`);
      return;
    } catch (err) {
      if (attempt < 20 && /being accessed by other users/.test((err as Error).message)) {
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
        continue;
      }
      throw err;
    }
  }
}

export async function dropDatabase(databaseUrl: string, name: string): Promise<void> {
  await adminQuery(databaseUrl, `drop database if exists "${name}" with (force)`);
}
