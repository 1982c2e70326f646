import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

// The tenancy rule (docs/architecture.md "Tenancy is a type") for functions not yet written: in the
// query files below, every public method and exported function that queries a tenant table (a
// drizzle table with an `orgId` column, passed to from/insert/update/delete/a join, or named in raw
// SQL), itself or through a private helper or a prepared statement of its class, takes an
// `OrgScope` (or a `Reach`, the typed multi-org scope of staff reads), or is named `unscoped*`, or
// is in ALLOWED with its reason. test/types and test/integration/tenancy.int.spec.ts prove the
// scope is honoured; this test proves it is asked for.

const ROOT = resolve(import.meta.dirname, '../..');

/** The files whose functions query tenant rows: repositories, their SQL fragments, the dated-history writers. */
const QUERY_FILE = /^src\/modules\/[^/]+\/(?:[^/]+\.(?:repository|sql)|history-writes|mailbox\.provider)\.ts$/;

/** A parameter typed with one of these carries the org (or orgs) of the query. */
const SCOPE_TYPE = /\b(?:OrgScope|Reach|QueueReach)\b/;

/** A table passed to one of these is queried (drizzle's query builders). */
const QUERYING = new Set(['from', 'insert', 'update', 'delete', 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin', 'crossJoin', '$count']);

/**
 * Functions that query tenant rows with no scope and no `unscoped` name, each for a reason a
 * rename would only obscure. Keep it short: a new entry needs the same kind of reason.
 */
const ALLOWED = new Map<string, string>([
  // User-keyed: the signed-in user's own memberships in every org, read with their session on
  // every request (the principal the org checks are made from); there is no org to scope by yet.
  ['src/modules/users/users.sql.ts:principalOf', 'user-keyed: the principal and its memberships'],
  // The same memberships' org ids, read in the same statement for the access gate's rule.
  ['src/modules/users/users.sql.ts:memberOrgIdsOf', 'user-keyed: the orgs the access gate asks about'],
  // A condition, not a query of its own: an Expert's grants as the scope of the attention list
  // (the `expert` QueueReach); the grant rows are matched on the outer row's org.
  ['src/modules/experts/experts.sql.ts:grantsCover', 'the Expert reach condition of another query'],
  // A part of another statement: the ledger rows of a turn, written by the ledger's own insert and
  // by the reply's statement, whose methods take the org's scope and give its org as the placeholder.
  ['src/modules/agent/llm-runs.sql.ts:ledgerRowsInsert', "a turn's ledger rows, part of a scoped statement"],
]);

interface TenantTables {
  /** The exported names of tenant tables in code (`conversationMessages`). */
  names: ReadonlySet<string>;
  /** Their names in SQL (`conversation_messages`). */
  sqlNames: ReadonlySet<string>;
}

type FunctionLike = ts.SignatureDeclaration & { body?: ts.Node };
interface Unit {
  name: string;
  fn?: FunctionLike;
  /** What it is made of: its body, or a field's initializer and the constructor's assignments to it. */
  parts: ts.Node[];
  /** Reachable from outside the file: a public method or an exported function. */
  api: boolean;
  /** `this.x` (class) or `x` (file) names of the same file's units it uses. */
  uses: Set<string>;
  touches: boolean;
}

/**
 * `path:function` (or `path:Class.method`) of every function of these files' API that queries a
 * tenant table and neither takes a scope, nor is named `unscoped*`, nor is allowed.
 */
function unscopedTenantQueries(files: Array<{ path: string; text: string }>, tables: TenantTables, allowed: ReadonlyMap<string, string> = ALLOWED): string[] {
  const sqlName = new RegExp(`\\b(?:${[...tables.sqlNames].join('|')})\\b`);
  const found: string[] = [];
  for (const { path, text } of files) {
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    // Local names bound to a tenant table by an import (`conversationMessages as messages`).
    const tenantLocals = new Set<string>();
    for (const statement of source.statements) {
      const named = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : undefined;
      if (!named || !ts.isNamedImports(named)) continue;
      for (const element of named.elements) {
        if (tables.names.has((element.propertyName ?? element.name).text)) tenantLocals.add(element.name.text);
      }
    }
    const queriesTenant = (node: ts.Node): boolean => {
      if (ts.isIdentifier(node) && tenantLocals.has(node.text)) {
        const parent = node.parent;
        if (ts.isCallExpression(parent) && parent.arguments.includes(node) && ts.isPropertyAccessExpression(parent.expression) && QUERYING.has(parent.expression.name.text)) return true;
        if (ts.isTemplateSpan(parent)) return true;
      }
      return (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) && sqlName.test(node.text);
    };

    const units = new Map<string, Unit>();
    const topLevel = new Set<string>();
    const add = (key: string, unit: Omit<Unit, 'uses' | 'touches'>) => units.set(key, { ...unit, uses: new Set(), touches: false });
    for (const statement of source.statements) {
      const exported = ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (ts.isFunctionDeclaration(statement) && statement.name) {
        topLevel.add(statement.name.text);
        add(statement.name.text, { name: statement.name.text, fn: statement, parts: statement.body ? [statement.body] : [], api: exported });
      }
      if (ts.isVariableStatement(statement)) {
        for (const d of statement.declarationList.declarations) {
          if (!ts.isIdentifier(d.name) || !d.initializer) continue;
          topLevel.add(d.name.text);
          const fn = ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer) ? d.initializer : undefined;
          add(d.name.text, { name: d.name.text, fn, parts: [d.initializer], api: exported && fn !== undefined });
        }
      }
      if (!ts.isClassDeclaration(statement) || !statement.name) continue;
      const owner = statement.name.text;
      const assigned = new Map<string, ts.Node[]>();
      for (const member of statement.members) {
        if (!ts.isConstructorDeclaration(member) || !member.body) continue;
        for (const st of member.body.statements) {
          const e = ts.isExpressionStatement(st) ? st.expression : undefined;
          if (e && ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(e.left) && e.left.expression.kind === ts.SyntaxKind.ThisKeyword) {
            assigned.set(e.left.name.text, [...(assigned.get(e.left.name.text) ?? []), e.right]);
          }
        }
      }
      for (const member of statement.members) {
        if (ts.isConstructorDeclaration(member) || !member.name || ts.isComputedPropertyName(member.name)) continue;
        const name = member.name.text;
        const api =
          !((ts.canHaveModifiers(member) && ts.getModifiers(member)) || []).some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword) &&
          !ts.isPrivateIdentifier(member.name);
        if ((ts.isMethodDeclaration(member) || ts.isGetAccessorDeclaration(member)) && member.body) add(`this.${name}`, { name: `${owner}.${name}`, fn: member, parts: [member.body], api });
        else if (ts.isPropertyDeclaration(member)) {
          const fn = member.initializer && (ts.isArrowFunction(member.initializer) || ts.isFunctionExpression(member.initializer)) ? member.initializer : undefined;
          add(`this.${name}`, { name: `${owner}.${name}`, fn, parts: [...(member.initializer ? [member.initializer] : []), ...(assigned.get(name) ?? [])], api: api && fn !== undefined });
        }
      }
    }

    // What each unit queries itself, and which of the file's units it uses.
    for (const unit of units.values()) {
      const visit = (node: ts.Node): void => {
        if (ts.isTypeNode(node)) return;
        if (queriesTenant(node)) unit.touches = true;
        if (ts.isPropertyAccessExpression(node) && node.expression.kind === ts.SyntaxKind.ThisKeyword && units.has(`this.${node.name.text}`)) unit.uses.add(`this.${node.name.text}`);
        if (ts.isIdentifier(node) && topLevel.has(node.text) && !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)) unit.uses.add(node.text);
        ts.forEachChild(node, visit);
      };
      unit.parts.forEach(visit);
    }
    // Through helpers and prepared statements: a unit using one that queries tenant rows does too.
    for (let changed = true; changed;) {
      changed = false;
      for (const unit of units.values()) {
        if (!unit.touches && [...unit.uses].some((u) => units.get(u)!.touches)) changed = unit.touches = true;
      }
    }

    for (const unit of units.values()) {
      if (!unit.api || !unit.touches || !unit.fn) continue;
      if (unit.name.split('.').at(-1)!.startsWith('unscoped')) continue;
      if (unit.fn.parameters.some((p) => p.type && SCOPE_TYPE.test(p.type.getText(source)))) continue;
      const key = `${path}:${unit.name}`;
      if (!allowed.has(key)) found.push(key);
    }
  }
  return found.sort();
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { recursive: true });
  return entries.map((e) => join(dir, e).split('\\').join('/'));
}

/** The tenant tables of the drizzle schema (drizzle.config.ts): those with an `orgId` column. */
async function tenantTables(): Promise<TenantTables & { all: string[] }> {
  const tableFiles = (await filesUnder('src')).filter((p) => /^src\/(?:modules|platform)\/[^/]+\/[^/]+\.tables\.ts$/.test(p));
  const names = new Set<string>();
  const sqlNames = new Set<string>();
  const all: string[] = [];
  for (const file of tableFiles) {
    const exports = (await import(pathToFileURL(join(ROOT, file)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) {
      if (!is(value, PgTable)) continue;
      all.push(getTableName(value));
      if (!('orgId' in getTableColumns(value))) continue;
      names.add(name);
      sqlNames.add(getTableName(value));
    }
  }
  return { names, sqlNames, all };
}

let tables: TenantTables & { all: string[] };

beforeAll(async () => {
  tables = await tenantTables();
}, 60_000);

describe('tenant queries take a scope', () => {
  it('finds the tenant tables in the schema', () => {
    expect(tables.sqlNames.size).toBeGreaterThanOrEqual(30);
    for (const t of ['conversations', 'org_memberships', 'invoices', 'llm_runs', 'hosted_mailboxes']) expect(tables.sqlNames).toContain(t);
    for (const t of ['orgs', 'users']) {
      expect(tables.all).toContain(t);
      expect(tables.sqlNames).not.toContain(t);
    }
  });

  it('every function of src/modules that touches tenant rows takes an OrgScope, is unscoped*, or is allowed', async () => {
    const paths = (await filesUnder('src/modules')).filter((p) => QUERY_FILE.test(p));
    expect(paths.length).toBeGreaterThan(20);
    const files = await Promise.all(paths.map(async (path) => ({ path, text: await readFile(join(ROOT, path), 'utf8') })));
    expect(unscopedTenantQueries(files, tables)).toEqual([]);
    // An allowed entry that no longer matches anything goes.
    const stale = [...ALLOWED.keys()].filter((key) => !unscopedTenantQueries(files, tables, new Map()).includes(key));
    expect(stale).toEqual([]);
  });

  it('bites: a fixture that forgets the scope is reported, function by function', () => {
    const fixture = `
import { and, eq, sql } from 'drizzle-orm';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { conversationMessages as messages, conversations } from './conversations.tables.js';
import { orgs } from '../orgs/orgs.tables.js';

export class FixtureRepository {
  private readonly byId: (args: { id: string }) => Promise<unknown>;
  constructor(private readonly db: any) {
    this.byId = db.prepared('by_id', (d: any) => d.select().from(conversations).where(eq(conversations.id, sql.placeholder('id'))));
  }
  async forgets(id: string) {
    return this.db.select().from(conversations).where(eq(conversations.id, id));
  }
  async forgetsAliased(id: string) {
    return this.db.update(messages).set({ content: '' }).where(eq(messages.id, id));
  }
  async forgetsInRawSql(id: string) {
    return this.db.execute(sql\`delete from conversation_turns where message_id = \${id}\`);
  }
  readonly forgetsInArrow = (id: string) => this.db.delete(conversations).where(eq(conversations.id, id));
  async forgetsThroughAHelper(id: string) {
    return this.helper(eq(conversations.id, id));
  }
  async forgetsThroughAStatement(id: string) {
    return this.byId({ id });
  }
  async scoped(scope: OrgScope, id: string) {
    return this.helper(and(inOrg(conversations.orgId, scope), eq(conversations.id, id)));
  }
  async scopedMany(scopes: readonly OrgScope[]) {
    return this.db.select().from(messages).where(inOrg(messages.orgId, scopes[0]!));
  }
  async unscopedEveryOrg() {
    return this.helper(undefined);
  }
  async notTenant(id: string) {
    return this.db.select().from(orgs).where(eq(orgs.id, id));
  }
  async onlyAColumn(id: string) {
    return eq(conversations.id, id);
  }
  private helper(where: unknown) {
    return this.db.select().from(conversations).where(where);
  }
}

function localHelper(db: any) {
  return db.select().from(messages);
}
export async function forgetsTopLevel(db: any, orgId: string) {
  await db.insert(conversations).values({ orgId });
}
export const forgetsThroughALocalHelper = (db: any) => localHelper(db);
export const allowedHere = (db: any) => db.select().from(conversations);
`;
    const files = [{ path: 'src/modules/fixture/fixture.repository.ts', text: fixture }];
    const at = (name: string) => `src/modules/fixture/fixture.repository.ts:${name}`;
    expect(unscopedTenantQueries(files, tables, new Map([[at('allowedHere'), 'fixture']]))).toEqual(
      [
        'FixtureRepository.forgets',
        'FixtureRepository.forgetsAliased',
        'FixtureRepository.forgetsInArrow',
        'FixtureRepository.forgetsInRawSql',
        'FixtureRepository.forgetsThroughAHelper',
        'FixtureRepository.forgetsThroughAStatement',
        'forgetsThroughALocalHelper',
        'forgetsTopLevel',
      ].map(at),
    );
  });
});
