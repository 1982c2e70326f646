import { explainPlan, withClient, type PlanSummary } from './pg.js';

/**
 * Set-based data for the `GET /api/notifications` measurements, written straight into the bench
 * database (never through the API: a million POSTs would take minutes).
 */

/** The list query of the server's repository, in plain SQL (for EXPLAIN only). */
const LIST_SQL = 'select * from app_notifications where recipient_user_id = $1 order by created_at desc, id desc limit 50 offset 0';

/** The table and the plan of the list query (EXPLAIN ANALYZE, one run). */
export interface TableState extends PlanSummary {
  rows: number;
  rowsForUser: number;
  /** Size of the table with its indexes. */
  totalSize: string;
}

/** Empties the table (rows left by the POST and socket measurements). */
export function truncateNotifications(databaseUrl: string): Promise<void> {
  return withClient(databaseUrl, async (client) => {
    await client.query('truncate app_notifications');
  });
}

/** Deletes the rows of one event type (those the POST measurements created, `bench.post`). */
export function deleteNotificationsOfType(databaseUrl: string, eventType: string): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query('delete from app_notifications where event_type = $1', [eventType]);
    return result.rowCount ?? 0;
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
 * starting in the middle of the measured run. Then CHECKPOINT: the bulk load's dirty pages (400 MB
 * for a million rows) are written now, not by the checkpointer spreading them over the minutes of
 * the measured run (the list would be measured against the disk's flush of the load).
 */
export function vacuumAnalyzeNotifications(databaseUrl: string): Promise<void> {
  return withClient(databaseUrl, async (client) => {
    await client.query('vacuum (analyze) app_notifications');
    await client.query('checkpoint');
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
    const plan = await explainPlan(client, LIST_SQL, [userId], 'app_notifications');
    const row = counts.rows[0];
    return {
      rows: Number(row?.rows ?? 0),
      rowsForUser: Number(row?.for_user ?? 0),
      ...plan,
      totalSize: row?.size ?? '?',
    };
  });
}
