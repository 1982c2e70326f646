/// <reference types="vite/client" />
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { getTableName, is } from 'drizzle-orm';
import { PgTable, getTableConfig } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';

describe('migrations', () => {
  it('are up to date with the drizzle schema (drizzle-kit generates nothing new)', () => {
    // drizzle-kit wants an output folder relative to the project.
    mkdirSync('.tmp', { recursive: true });
    const out = `.tmp/drizzle-check-${randomBytes(4).toString('hex')}`;
    try {
      cpSync('drizzle', out, { recursive: true });
      const before = readdirSync(out).sort();
      const output = execFileSync(process.execPath, ['node_modules/drizzle-kit/bin.cjs', 'generate'], {
        env: { ...process.env, DRIZZLE_OUT: out },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(output).toMatch(/No schema changes/);
      expect(readdirSync(out).sort()).toEqual(before);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});

/** Every drizzle table of the service, read from the same files drizzle-kit reads. */
function allTables(): PgTable[] {
  const files = import.meta.glob<Record<string, unknown>>(['../../src/modules/*/*.tables.ts', '../../src/platform/*/*.tables.ts'], { eager: true });
  return Object.values(files).flatMap((exports) => Object.values(exports).filter((v): v is PgTable => is(v, PgTable)));
}

describe('schema rules', () => {
  const tables = allTables().map((t) => getTableConfig(t));
  // Logs that outlive (audit) or may precede (a provider's webhook) the org they name: no foreign key.
  const orgLogs = new Set(['audit_log', 'billing_webhook_events']);

  it('finds the tables', () => {
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['orgs', 'conversations', 'conversation_turns', 'audit_log']));
  });

  it('gives every tenant row a foreign key to its org and an index that starts with org_id', () => {
    const problems: string[] = [];
    for (const t of tables) {
      const orgId = t.columns.find((c) => c.name === 'org_id');
      if (!orgId || orgLogs.has(t.name)) continue;
      const referencesOrgs = t.foreignKeys.some((fk) => {
        const ref = fk.reference();
        return ref.columns.map((c) => c.name).join() === 'org_id' && getTableName(ref.foreignTable) === 'orgs';
      });
      if (!referencesOrgs) problems.push(`${t.name}: no foreign key to orgs`);
      const leading = [
        ...t.indexes.map((i) => i.config.columns[0]),
        ...t.primaryKeys.map((pk) => pk.columns[0]),
        ...t.uniqueConstraints.map((u) => u.columns[0]),
        ...(orgId.primary || orgId.isUnique ? [orgId] : []),
      ];
      if (!leading.some((c) => c && 'name' in c && c.name === 'org_id')) problems.push(`${t.name}: no index starting with org_id`);
    }
    expect(problems).toEqual([]);
  });

  it('checks every status column against its list of values', () => {
    const unchecked = tables.flatMap((t) =>
      t.columns
        .filter((c) => /(^|_)(status|state)$/.test(c.name) && !c.name.startsWith('provider_'))
        .filter((c) => !t.checks.some((k) => k.name === `${t.name}_${c.name}_check`))
        .map((c) => `${t.name}.${c.name}`),
    );
    expect(unchecked).toEqual([]);
  });
});
