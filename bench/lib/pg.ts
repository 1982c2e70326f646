import pg from 'pg';

/** The URL of an embedded database directory (a server's `<DATA_DIR>/pglite`) for `withClient`. */
export const pgliteUrl = (dir: string) => `pglite:${dir}`;

/**
 * `fn` with the embedded database of a stopped server opened in this process (PGlite takes one
 * user at a time), behind the few parts of pg.Client the data helpers use: `query(text, params)`
 * with `rows` and `rowCount`.
 */
async function withPglite<T>(dir: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = new PGlite(dir);
  await db.waitReady;
  const client = {
    async query(text: string, params?: unknown[]) {
      const result = await db.query(text, params);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
  };
  try {
    return await fn(client as unknown as pg.Client);
  } finally {
    await db.close();
  }
}

/** One short-lived connection to the bench database for `fn`, closed afterwards (`pglite:<dir>`: the embedded one). */
export async function withClient<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  if (databaseUrl.startsWith('pglite:')) return withPglite(databaseUrl.slice('pglite:'.length), fn);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A query plan summed up on one line, from one run of EXPLAIN (ANALYZE, BUFFERS). */
export interface PlanSummary {
  /** The plan's nodes without their timing: "Limit -> Sort -> Bitmap Heap Scan on ...". */
  plan: string;
  planExecutionMs: number | null;
  /** The buffers line of the plan's top node, e.g. "shared hit=1003". */
  planBuffers: string | null;
}

/**
 * Runs `sql` once under EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) and sums the plan up. `table` is
 * dropped from the node names (" on <table>") to keep the line short.
 */
export async function explainPlan(client: pg.Client, sql: string, params: unknown[], table?: string): Promise<PlanSummary> {
  const explain = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) ${sql}`, params);
  const lines = explain.rows.map((r) => r['QUERY PLAN']);
  const exec = lines.map((l) => /Execution Time: ([\d.]+) ms/.exec(l)).find((m) => m !== null);
  const buffers = lines.map((l) => /^\s*Buffers: (.*)$/.exec(l)).find((m) => m !== null);
  const onTable = table ? new RegExp(` on ${table}$`) : undefined;
  const nodes = lines
    .filter((l) => l.includes('->') || !l.startsWith(' '))
    .filter((l) => !/^(Planning|Execution) Time|^Planning:/.test(l))
    .map((l) => {
      const node = l.replace(/^\s*->\s*/, '').replace(/\s*\(actual.*$/, '');
      return (onTable ? node.replace(onTable, '') : node).trim();
    });
  return { plan: nodes.join(' -> '), planExecutionMs: exec ? Number(exec[1]) : null, planBuffers: buffers?.[1] ?? null };
}
