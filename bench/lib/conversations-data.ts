import { explainPlan, withClient, type PlanSummary } from './pg.js';
import { QUEUE_GRANTED_ORGS_SQL } from './queue-sql.js';
import { signUserTokens } from './users.js';

/**
 * Set-based data for the conversation measurements, written straight into the bench database:
 * active orgs with a primary Specialist (OSA) and a client member each, one conversation per org;
 * then the Expert attention list with its conversations.
 */

const ORG_SLUG_PREFIX = 'bench-org-';
const CLIENT_EMAIL_PREFIX = 'bench-conv-client-';

export interface BenchOrg {
  orgId: string;
  specialistId: string;
  conversationId: string;
  /** The org's client (org_member, membership `member`) and their token. */
  clientId: string;
  clientToken: string;
}

/**
 * `count` active orgs (`bench-org-<n>` unless `prefixes` says otherwise, assigned to the account
 * manager `amId`), each with a primary OSA of a catalog Specialist (round-robin over the catalog),
 * a client user with a membership, and one conversation started by that client; one statement.
 * Each client gets a
 * token signed with the run's key, whose `orgMemberships` name their org (as the server's would).
 */
export async function createBenchOrgs(
  databaseUrl: string,
  privateKeyPem: string,
  count: number,
  amId: string,
  prefixes: { orgSlug: string; clientEmail: string } = { orgSlug: ORG_SLUG_PREFIX, clientEmail: CLIENT_EMAIL_PREFIX },
): Promise<BenchOrg[]> {
  const rows = await withClient(databaseUrl, async (client) => {
    const catalog = await client.query<{ n: string }>('select count(*)::text as n from specialists');
    if (Number(catalog.rows[0]?.n ?? 0) === 0) throw new Error('the Specialist catalog is empty: the server did not seed its demo data');
    const result = await client.query<{
      org_id: string;
      specialist_id: string;
      conversation_id: string;
      user_id: string;
      email: string;
      name: string;
      pwc_ms: string;
    }>(
      `with catalog as (
         select id, row_number() over (order by slug) - 1 as k, count(*) over () as size from specialists
       ),
       new_orgs as (
         insert into orgs (legal_name, slug, industry, corporate_domains, admin_email, website, timezone, status, assigned_am_id)
         select 'Bench Org ' || g, $1 || g, 'technology', array[$1 || g || '.bench.invalid'],
                'admin@' || $1 || g || '.bench.invalid', 'https://' || $1 || g || '.bench.invalid', 'UTC', 'active', $4::uuid
         from generate_series(1, $3::int) g
         returning id, slug
       ),
       numbered as (
         select id as org_id, substring(slug from '[0-9]+$')::int as g from new_orgs
       ),
       osas as (
         insert into org_specialist_assignments (org_id, specialist_id, is_primary, email_alias)
         select n.org_id, c.id, true, 'specialist@' || $1 || n.g || '.bench.invalid'
         from numbered n join catalog c on c.k = n.g % c.size
         returning id, org_id, specialist_id
       ),
       clients as (
         insert into users (email, name, platform_role, status)
         select $2 || g || '@bench.invalid', 'Bench client ' || g, 'org_member', 'active'
         from generate_series(1, $3::int) g
         returning id, email, name, password_changed_at
       ),
       members as (
         insert into org_memberships (org_id, user_id, org_role)
         select n.org_id, u.id, 'member' from numbered n join clients u on u.email = $2 || n.g || '@bench.invalid'
         returning org_id, user_id
       ),
       threads as (
         insert into conversations (org_id, assignment_id, specialist_id, subject, created_by)
         select o.org_id, o.id, o.specialist_id, 'Bench conversation', m.user_id
         from osas o join members m on m.org_id = o.org_id
         returning id, org_id, specialist_id, created_by
       )
       select t.org_id, t.specialist_id, t.id as conversation_id, u.id as user_id, u.email, u.name,
              (extract(epoch from u.password_changed_at) * 1000)::bigint::text as pwc_ms
       from threads t join clients u on u.id = t.created_by join numbered n on n.org_id = t.org_id
       order by n.g`,
      [prefixes.orgSlug, prefixes.clientEmail, count, amId],
    );
    return result.rows;
  });
  const tokens = await signUserTokens(
    databaseUrl,
    privateKeyPem,
    rows.map((r) => ({
      id: r.user_id,
      email: r.email,
      name: r.name,
      platformRole: 'org_member',
      orgMemberships: [{ orgId: r.org_id, orgRole: 'member' }],
      passwordChangedAtMs: Number(r.pwc_ms),
    })),
  );
  return rows.map((r, i) => ({
    orgId: r.org_id,
    specialistId: r.specialist_id,
    conversationId: r.conversation_id,
    clientId: r.user_id,
    clientToken: tokens[i]!,
  }));
}

/**
 * Removes every message of the bench orgs (and their turns) and their ledger rows, before a
 * server run: the baseline's rows, or an earlier server run's. Returns the messages deleted.
 */
export function deleteMessages(databaseUrl: string, orgIds: string[]): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query('delete from conversation_messages where org_id = any($1::uuid[])', [orgIds]);
    await client.query('delete from llm_runs where org_id = any($1::uuid[])', [orgIds]);
    // The server starts from threads as clean as the baseline's: without the baseline's dead rows in
    // their indexes, with fresh planner statistics (what autovacuum would leave a minute later).
    for (const table of ['conversation_messages', 'conversation_turns', 'llm_runs']) await client.query(`vacuum (analyze) ${table}`);
    return result.rowCount ?? 0;
  });
}

/** What the conversations of the bench orgs hold after the server's run. */
export interface ReplyCounts {
  clientMessages: number;
  /** Specialist replies to those client messages. */
  replies: number;
  /** Client messages without a reply. */
  unanswered: number;
  /** Client messages with more than one reply (the unique index should make this 0). */
  answeredTwice: number;
  /** Specialist rows that answer no client message of the bench orgs. */
  strayReplies: number;
  /** Turns not `done`, by status. */
  openTurns: Record<string, number>;
  /** Rows of the LLM cost ledger for these turns (one per model call). */
  ledgerRows: number;
  /** The reply ids, to match the pushed events against. */
  replyIds: string[];
}

export function countReplies(databaseUrl: string, orgIds: string[]): Promise<ReplyCounts> {
  return withClient(databaseUrl, async (client) => {
    const counts = await client.query<{ client_messages: string; replies: string; unanswered: string; answered_twice: string; stray: string; ledger: string }>(
      `with client_messages as (
         select id from conversation_messages where org_id = any($1::uuid[]) and role = 'client'
       ),
       replies as (
         select id, reply_to_message_id from conversation_messages where org_id = any($1::uuid[]) and role = 'specialist'
       ),
       per_message as (
         select m.id, count(r.id) as n from client_messages m left join replies r on r.reply_to_message_id = m.id group by m.id
       )
       select (select count(*) from client_messages)::text as client_messages,
              (select count(*) from replies)::text as replies,
              (select count(*) from per_message where n = 0)::text as unanswered,
              (select count(*) from per_message where n > 1)::text as answered_twice,
              (select count(*) from replies r where r.reply_to_message_id is null
                 or not exists (select 1 from client_messages m where m.id = r.reply_to_message_id))::text as stray,
              (select count(*) from llm_runs where org_id = any($1::uuid[]))::text as ledger`,
      [orgIds],
    );
    const turns = await client.query<{ status: string; n: string }>(`select status, count(*)::text as n from conversation_turns where org_id = any($1::uuid[]) and status <> 'done' group by status`, [
      orgIds,
    ]);
    const ids = await client.query<{ id: string }>(`select id from conversation_messages where org_id = any($1::uuid[]) and role = 'specialist'`, [orgIds]);
    const row = counts.rows[0];
    return {
      clientMessages: Number(row?.client_messages ?? 0),
      replies: Number(row?.replies ?? 0),
      unanswered: Number(row?.unanswered ?? 0),
      answeredTwice: Number(row?.answered_twice ?? 0),
      strayReplies: Number(row?.stray ?? 0),
      openTurns: Object.fromEntries(turns.rows.map((r) => [r.status, Number(r.n)])),
      ledgerRows: Number(row?.ledger ?? 0),
      replyIds: ids.rows.map((r) => r.id),
    };
  });
}

/**
 * The attention list: `count` conversations spread round-robin over the bench orgs (with their
 * OSA), each with its queue item (one per conversation); statuses cycle through the four, the item's
 * status is its conversation's, `updated_at` spread over the last 30 days (distinct seconds), a
 * snoozed one resurfaces in 7 days. One statement. Then the demo Expert gets an org-wide grant on
 * every `grantEvery`-th bench org.
 */
export function insertQueueItems(databaseUrl: string, count: number, expertId: string, grantEvery: number): Promise<void> {
  return withClient(databaseUrl, async (client) => {
    await client.query(
      `with osas as (
         select a.org_id, a.id, a.specialist_id, row_number() over (order by o.slug) - 1 as k, count(*) over () as size
         from org_specialist_assignments a join orgs o on o.id = a.org_id
         where o.slug like $1 || '%' and a.unassigned_at is null and a.is_primary
       ),
       spread as (
         select g, o.org_id, o.id as assignment_id, o.specialist_id,
                (array['pending', 'awaiting_client', 'resolved', 'snoozed'])[1 + g % 4] as status,
                now() - ((g::bigint * 7919) % 2592000) * interval '1 second' as at
         from generate_series(1, $2::int) g join osas o on o.k = g % o.size
       ),
       threads as (
         insert into conversations (org_id, assignment_id, specialist_id, subject, status, resolved_at, snooze_until,
                                    created_at, updated_at, last_message_at)
         select org_id, assignment_id, specialist_id, 'Queue conversation ' || g, status,
                case when status = 'resolved' then at end, case when status = 'snoozed' then now() + interval '7 days' end,
                at, at, at
         from spread
         returning id, org_id, specialist_id, subject, channel, status, snooze_until, updated_at
       )
       insert into queue_items (org_id, conversation_id, specialist_id, subject, channel, reason, note, status, sla_deadline, deferred_until, created_at, updated_at)
       select org_id, id, specialist_id, subject, channel,
              case when extract(second from updated_at)::int % 2 = 0 then 'escalation' else 'agent_failure' end,
              'A bench item', status, updated_at + interval '4 hours', snooze_until, updated_at, updated_at
       from threads`,
      [ORG_SLUG_PREFIX, count],
    );
    await client.query(
      `insert into expert_grants (org_id, expert_id, scope)
       select o.id, $2::uuid, 'org' from orgs o
       where o.slug like $1 || '%' and substring(o.slug from '[0-9]+$')::int % $3::int = 0`,
      [ORG_SLUG_PREFIX, expertId, grantEvery],
    );
  });
}

/** VACUUM (ANALYZE) of the tables the attention list reads (see notifications-data.ts for why). */
export function vacuumAnalyzeQueue(databaseUrl: string): Promise<void> {
  return withClient(databaseUrl, async (client) => {
    for (const table of ['queue_items', 'conversations', 'expert_grants']) await client.query(`vacuum (analyze) ${table}`);
  });
}

/**
 * The list query of the server's repository in plain SQL (for EXPLAIN only): the newest page
 * (limit + 1 rows) of every org, or of the orgs in `$1` (an Expert's org-wide grants).
 */
const QUEUE_ALL_SQL = 'select * from queue_items order by updated_at desc, id desc limit 51';
const QUEUE_ORGS_SQL = 'select * from queue_items where org_id = any($1::uuid[]) order by updated_at desc, id desc limit 51';

export interface QueueState {
  items: number;
  /** Items of the orgs the Expert's grants cover. */
  itemsForExpert: number;
  expertOrgs: number;
  /** Size of queue_items with its indexes. */
  totalSize: string;
  expertPlan: PlanSummary;
  /** The baseline's statement for the Expert (its orgs from a subselect on the grants). */
  expertBaselinePlan: PlanSummary;
  allPlan: PlanSummary;
}

/** The expert's org ids (their grants, all org-wide here), the counts, the size and both plans. */
export function describeQueue(databaseUrl: string, expertId: string): Promise<QueueState & { expertOrgIds: string[] }> {
  return withClient(databaseUrl, async (client) => {
    const grants = await client.query<{ org_id: string }>(`select distinct org_id from expert_grants where expert_id = $1`, [expertId]);
    const expertOrgIds = grants.rows.map((r) => r.org_id);
    const counts = await client.query<{ items: string; for_expert: string; size: string }>(
      `select count(*)::text as items, count(*) filter (where org_id = any($1::uuid[]))::text as for_expert,
              pg_size_pretty(pg_total_relation_size('queue_items')) as size
       from queue_items`,
      [expertOrgIds],
    );
    const row = counts.rows[0];
    return {
      items: Number(row?.items ?? 0),
      itemsForExpert: Number(row?.for_expert ?? 0),
      expertOrgs: expertOrgIds.length,
      expertOrgIds,
      totalSize: row?.size ?? '?',
      expertPlan: await explainPlan(client, QUEUE_ORGS_SQL, [expertOrgIds], 'queue_items'),
      expertBaselinePlan: await explainPlan(client, QUEUE_GRANTED_ORGS_SQL, [expertId], 'queue_items'),
      allPlan: await explainPlan(client, QUEUE_ALL_SQL, [], 'queue_items'),
    };
  });
}

/** The ids of the newest `limit` items (by updated_at, then id), of the given orgs or (null) of all. */
export function newestQueueItemIds(databaseUrl: string, orgIds: string[] | null, limit: number): Promise<string[]> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{ id: string }>(`select id from queue_items where $1::uuid[] is null or org_id = any($1::uuid[]) order by updated_at desc, id desc limit $2`, [orgIds, limit]);
    return result.rows.map((r) => r.id);
  });
}
