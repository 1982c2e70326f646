import pg from 'pg';

/**
 * Set-based data for the `GET /api/notifications` measurements, written straight into the bench
 * database (never through the API: a million POSTs would take minutes).
 */

/** The list query of the server's repository, in plain SQL (for EXPLAIN only). */
const LIST_SQL =
  'select * from app_notifications where recipient_user_id = $1 order by created_at desc, id desc limit 50 offset 0';

export interface TableState {
  rows: number;
  rowsForUser: number;
  /** The first line of EXPLAIN ANALYZE of the list query, and its execution time. */
  plan: string;
  planExecutionMs: number | null;
  /** The buffers line of the plan's top node, e.g. "shared hit=1003". */
  planBuffers: string | null;
  /** Size of the table with its indexes. */
  totalSize: string;
}

async function withClient<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Empties the table (rows left by the POST and socket measurements). */
export function truncateNotifications(databaseUrl: string): Promise<void> {
  return withClient(databaseUrl, async (client) => {
    await client.query('truncate app_notifications');
  });
}

/**
 * `count` notifications for one user, in one multi-row INSERT, spread over the last 30 days
 * (interleaved in time with the other users' rows of `insertOtherUsersNotifications`).
 */
export function insertUserNotifications(databaseUrl: string, userId: string, count: number): Promise<void> {
  return withClient(databaseUrl, async (client) => {
    await client.query(
      `insert into app_notifications (recipient_user_id, event_type, title, body, meta, read_at, created_at)
       select $1, (array['mention', 'assignment', 'system', 'billing'])[1 + g % 4],
              'Bench notification ' || g, 'Body of the bench notification number ' || g || ' for the list measurement',
              jsonb_build_object('seq', g, 'source', 'bench'),
              case when g % 3 = 0 then now() end,
              now() - (g * interval '30 days') / $2::int
       from generate_series(1, $2::int) g`,
      [userId, count],
    );
  });
}

/**
 * `count` notifications for `recipients` other users (uuids derived from md5, so random-looking
 * and not users of the table), created at random times over the last 30 days. One statement.
 */
export function insertOtherUsersNotifications(databaseUrl: string, count: number, recipients: number): Promise<void> {
  return withClient(databaseUrl, async (client) => {
    await client.query(
      `insert into app_notifications (recipient_user_id, event_type, title, body, meta, read_at, created_at)
       select md5('bench-other-recipient-' || (g % $2::int))::uuid::text,
              (array['mention', 'assignment', 'system', 'billing'])[1 + g % 4],
              'Other notification ' || g, 'Body of the other users'' notification number ' || g,
              jsonb_build_object('seq', g, 'source', 'bench'),
              case when g % 3 = 0 then now() end,
              now() - random() * interval '30 days'
       from generate_series(1, $1::int) g`,
      [count, recipients],
    );
  });
}

/**
 * VACUUM (ANALYZE): fresh planner statistics, and no insert-triggered autovacuum of the new rows
 * starting in the middle of the measured run.
 */
export function vacuumAnalyzeNotifications(databaseUrl: string): Promise<void> {
  return withClient(databaseUrl, async (client) => {
    await client.query('vacuum (analyze) app_notifications');
  });
}

export function describeTable(databaseUrl: string, userId: string): Promise<TableState> {
  return withClient(databaseUrl, async (client) => {
    const counts = await client.query<{ rows: string; for_user: string; size: string }>(
      `select count(*)::text as rows, count(*) filter (where recipient_user_id = $1)::text as for_user,
              pg_size_pretty(pg_total_relation_size('app_notifications')) as size
       from app_notifications`,
      [userId],
    );
    const explain = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) ${LIST_SQL}`, [userId]);
    const lines = explain.rows.map((r) => r['QUERY PLAN']);
    const exec = lines.map((l) => /Execution Time: ([\d.]+) ms/.exec(l)).find((m) => m !== null);
    const buffers = lines.map((l) => /^\s*Buffers: (.*)$/.exec(l)).find((m) => m !== null);
    // The plan without its timing lines, on one line: "Limit -> Sort -> Bitmap Heap Scan on ...".
    const nodes = lines
      .filter((l) => l.includes('->') || !l.startsWith(' '))
      .filter((l) => !/^(Planning|Execution) Time|^Planning:/.test(l))
      .map((l) => l.replace(/^\s*->\s*/, '').replace(/\s*\(actual.*$/, '').replace(/ on app_notifications$/, '').trim());
    const row = counts.rows[0];
    return {
      rows: Number(row?.rows ?? 0),
      rowsForUser: Number(row?.for_user ?? 0),
      plan: nodes.join(' -> '),
      planExecutionMs: exec ? Number(exec[1]) : null,
      planBuffers: buffers?.[1] ?? null,
      totalSize: row?.size ?? '?',
    };
  });
}
