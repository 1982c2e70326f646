import pg from 'pg';
import { BENCH_BOT_USER, type ChatAWorkspace } from './chat-a.js';
import { createBenchOrgs } from './conversations-data.js';
import { isRecord, request, snippet } from './http.js';
import { withClient } from './pg.js';

/*
 * The chat-a workspaces of the channel measurements (orgs bound by integrations), and what the
 * bench reads back from the database: the inbound queue's progress while it drains, and the
 * counts that say every accepted event was processed once, answered once and its reply sent.
 */

const ORG_SLUG_PREFIX = 'bench-chat-org-';
const CLIENT_EMAIL_PREFIX = 'bench-chat-client-';
const TEAM_PREFIX = 'TBENCH';

/**
 * `count` active orgs with a primary Specialist (as the conversation measurements' orgs, under
 * their own prefix), each bound to its own chat-a workspace `TBENCH<n>` by an integration created
 * through the API as the account manager (`POST /api/orgs/:orgId/integrations`, as
 * test/e2e/channels.e2e.spec.ts does): the server seals the bot token and writes the binding, which
 * the account manager then verifies (`POST .../integrations/:id/verify`).
 */
export async function createChatAWorkspaces(input: { dbUrl: string; privateKeyPem: string; serverBase: string; am: { token: string; sub: string }; count: number }): Promise<ChatAWorkspace[]> {
  const orgs = await createBenchOrgs(input.dbUrl, input.privateKeyPem, input.count, input.am.sub, { orgSlug: ORG_SLUG_PREFIX, clientEmail: CLIENT_EMAIL_PREFIX });
  const workspaces: ChatAWorkspace[] = [];
  for (const [i, org] of orgs.entries()) {
    const n = i + 1;
    const ws: ChatAWorkspace = { teamId: `${TEAM_PREFIX}${n}`, orgId: org.orgId, botToken: `xoxb-bench-${n}-${org.orgId.slice(0, 8)}`, channel: `CBENCH${n}` };
    const body = { channel: 'chat-a', externalId: ws.teamId, config: { botUserId: BENCH_BOT_USER }, secrets: { botToken: ws.botToken } };
    const created = await request(`${input.serverBase}/api/orgs/${org.orgId}/integrations`, { method: 'POST', headers: { authorization: `Bearer ${input.am.token}` }, body });
    if (created.status !== 201 || !isRecord(created.json) || created.json.externalId !== ws.teamId) {
      throw new Error(`POST /api/orgs/${org.orgId}/integrations (chat-a ${ws.teamId}) as the account manager answered ${created.status}, expected 201: ${snippet(created.text)}`);
    }
    // A new binding routes nothing until verified (API-MAP.md "Channel bindings and vendor traffic").
    const verified = await request(`${input.serverBase}/api/orgs/${org.orgId}/integrations/${String(created.json.id)}/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${input.am.token}` },
    });
    if (verified.status !== 204) throw new Error(`verifying the chat-a binding ${ws.teamId} answered ${verified.status}, expected 204: ${snippet(verified.text)}`);
    workspaces.push(ws);
  }
  return workspaces;
}

/** The database clock, so that every timing of a run is read on one clock. */
export function databaseNow(dbUrl: string): Promise<Date> {
  return withClient(dbUrl, async (client) => (await client.query<{ now: Date }>('select clock_timestamp() as now')).rows[0]!.now);
}

/** Where the run's events are: kept, still open (queued or processing), done; their replies unsent or sent. */
export interface InboundProgress {
  stored: number;
  open: number;
  done: number;
  /** Replies of these events' conversations in the outbox, not sent yet (pending or sending) and sent. */
  unsent: number;
  sent: number;
}

const PROGRESS_SQL = `
  with ev as (select status, conversation_id from inbound_events where channel = 'chat-a' and event_key = any($1::text[])),
  ob as (select o.status from outbound_messages o where o.conversation_id in (select conversation_id from ev where conversation_id is not null))
  select (select count(*) from ev)::int as stored,
         (select count(*) from ev where status in ('queued', 'processing'))::int as open,
         (select count(*) from ev where status = 'done')::int as done,
         (select count(*) from ob where status in ('pending', 'sending'))::int as unsent,
         (select count(*) from ob where status = 'sent')::int as sent`;

export async function inboundProgress(client: pg.Client, keys: string[]): Promise<InboundProgress> {
  const { rows } = await client.query<InboundProgress>(PROGRESS_SQL, [keys]);
  return rows[0]!;
}

/** The depth backpressure watches (every channel's events queued or processing) and the events done since `since`. */
export interface DepthSample {
  atMs: number;
  open: number;
  doneSince: number;
}

/**
 * Samples the inbound queue every `intervalMs` on a connection of its own while a run goes on:
 * the open depth (what the server compares with INBOUND_QUEUE_MAX_DEPTH) and the events done.
 * `now()` takes one sample at once (the depth when the first 503 came).
 */
export async function startDepthSampler(dbUrl: string, since: Date, intervalMs: number, clock: () => number) {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const samples: DepthSample[] = [];
  let busy: Promise<DepthSample | undefined> = Promise.resolve(undefined);
  let stopped = false;
  const sample = (): Promise<DepthSample | undefined> => {
    busy = busy.then(async () => {
      if (stopped) return undefined;
      const { rows } = await client.query<{ open: number; done: number }>(
        `select count(*) filter (where status in ('queued', 'processing'))::int as open,
                count(*) filter (where status = 'done' and received_at >= $1)::int as done
         from inbound_events`,
        [since],
      );
      const s = { atMs: clock(), open: rows[0]!.open, doneSince: rows[0]!.done };
      samples.push(s);
      return s;
    });
    return busy;
  };
  const timer = setInterval(() => void sample().catch(() => undefined), intervalMs);
  return {
    samples,
    now: sample,
    async stop(): Promise<DepthSample[]> {
      clearInterval(timer);
      await busy.catch(() => undefined);
      stopped = true;
      await client.end().catch(() => undefined);
      return samples;
    },
  };
}

/** What the run's events left in the database, checked event by event. */
export interface ChannelCounts {
  /** Rows of inbound_events for the run's keys, and by status. */
  stored: number;
  statuses: Record<string, number>;
  /** Conversations the events opened (one thread each). */
  conversations: number;
  /** Client messages in those conversations, and events done without a message of their own. */
  clientMessages: number;
  doneWithoutMessage: number;
  /** Events sharing one client message (a redelivery would). */
  sharedMessages: number;
  /** Specialist replies; client messages with none, with more than one; replies answering none. */
  replies: number;
  unanswered: number;
  answeredTwice: number;
  strayReplies: number;
  /** Turns of those messages (one per message), and those not done. */
  turns: number;
  openTurns: number;
  /** Rows of the LLM ledger for those conversations. */
  ledgerRows: number;
  /** Outbox rows for those conversations, by status; replies without a row. */
  outbox: number;
  outboxStatuses: Record<string, number>;
  repliesWithoutOutbox: number;
  /** The first outbox error, if any. */
  outboxError: string | null;
  /** Seconds after the first event was received: the last one done, the last reply in the outbox, the last sent. */
  lastDoneS: number | null;
  lastOutboxS: number | null;
  lastSentS: number | null;
  /** Seconds from the first to the last event received. */
  lastReceivedS: number | null;
  /** Seconds an event waited from received to done, and a reply from the outbox to sent: p50 / p99 / max. */
  eventWaitS: SecondsSpread | null;
  replyWaitS: SecondsSpread | null;
  /** Events done in each 5-second window after the first event was received. */
  donePer5s: number[];
}

export interface SecondsSpread {
  p50: number;
  p99: number;
  max: number;
}

/** p50 / p99 / max of an interval over some rows, in seconds, as one JSON object (null without rows). */
const spread = (interval: string, from: string) =>
  `select case when count(*) > 0 then json_build_object(
     'p50', percentile_cont(0.5) within group (order by extract(epoch from ${interval})),
     'p99', percentile_cont(0.99) within group (order by extract(epoch from ${interval})),
     'max', max(extract(epoch from ${interval}))) end from ${from}`;

export function countChannelRun(dbUrl: string, keys: string[]): Promise<ChannelCounts> {
  return withClient(dbUrl, async (client) => {
    const { rows } = await client.query<Omit<ChannelCounts, 'statuses' | 'outboxStatuses'> & { statuses: Record<string, number> | null; outbox_statuses: Record<string, number> | null }>(
      `with ev as (
         select id, status, conversation_id, message_id, received_at, processed_at
         from inbound_events where channel = 'chat-a' and event_key = any($1::text[])
       ),
       conv as (select distinct conversation_id as id from ev where conversation_id is not null),
       cm as (select m.id from conversation_messages m join conv c on c.id = m.conversation_id where m.role = 'client'),
       rp as (select m.id, m.reply_to_message_id from conversation_messages m join conv c on c.id = m.conversation_id where m.role = 'specialist'),
       per as (select cm.id, count(rp.id) as n from cm left join rp on rp.reply_to_message_id = cm.id group by cm.id),
       ob as (select o.message_id, o.status, o.last_error, o.created_at, o.sent_at from outbound_messages o join conv c on c.id = o.conversation_id),
       t0 as (select min(received_at) as at from ev)
       select (select count(*) from ev)::int as stored,
              (select json_object_agg(status, n) from (select status, count(*)::int as n from ev group by status) s) as statuses,
              (select count(*) from conv)::int as conversations,
              (select count(*) from cm)::int as "clientMessages",
              (select count(*) from ev where status = 'done' and (message_id is null or message_id not in (select id from cm)))::int as "doneWithoutMessage",
              (select count(*) from (select message_id from ev where message_id is not null group by message_id having count(*) > 1) d)::int as "sharedMessages",
              (select count(*) from rp)::int as replies,
              (select count(*) from per where n = 0)::int as unanswered,
              (select count(*) from per where n > 1)::int as "answeredTwice",
              (select count(*) from rp where reply_to_message_id is null or reply_to_message_id not in (select id from cm))::int as "strayReplies",
              (select count(*) from conversation_turns t join conv c on c.id = t.conversation_id)::int as turns,
              (select count(*) from conversation_turns t join conv c on c.id = t.conversation_id where t.status <> 'done')::int as "openTurns",
              (select count(*) from llm_runs r join conv c on c.id = r.conversation_id)::int as "ledgerRows",
              (select count(*) from ob)::int as outbox,
              (select json_object_agg(status, n) from (select status, count(*)::int as n from ob group by status) s) as outbox_statuses,
              (select count(*) from rp where id not in (select message_id from ob))::int as "repliesWithoutOutbox",
              (select last_error from ob where last_error is not null limit 1) as "outboxError",
              (select extract(epoch from max(processed_at) - (select at from t0)) from ev where status = 'done')::float8 as "lastDoneS",
              (select extract(epoch from max(created_at) - (select at from t0)) from ob)::float8 as "lastOutboxS",
              (select extract(epoch from max(sent_at) - (select at from t0)) from ob)::float8 as "lastSentS",
              (select extract(epoch from max(received_at) - (select at from t0)) from ev)::float8 as "lastReceivedS",
              (${spread('processed_at - received_at', "ev where status = 'done'")}) as "eventWaitS",
              (${spread('sent_at - created_at', 'ob where sent_at is not null')}) as "replyWaitS",
              (select coalesce(array_agg(coalesce(n, 0) order by w), '{}') from generate_series(0, (
                 select floor(extract(epoch from max(processed_at) - (select at from t0)) / 5)::int from ev where status = 'done')) w
               left join (select floor(extract(epoch from processed_at - (select at from t0)) / 5)::int as w, count(*)::int as n
                          from ev where status = 'done' group by 1) d using (w)) as "donePer5s"`,
      [keys],
    );
    const { statuses, outbox_statuses, ...row } = rows[0]!;
    return { ...row, statuses: statuses ?? {}, outboxStatuses: outbox_statuses ?? {} };
  });
}

/** What is wrong with a run's counts, given the events the bench saw accepted (empty: nothing). */
export function channelProblems(c: ChannelCounts, accepted: number, sent: number): string[] {
  const problems: string[] = [];
  const done = c.statuses.done ?? 0;
  if (c.stored < accepted || c.stored > sent) problems.push(`${c.stored} events kept, expected between the ${accepted} accepted and the ${sent} sent`);
  const notDone = Object.entries(c.statuses).filter(([status]) => status !== 'done');
  if (notDone.length > 0) problems.push(`events not done: ${JSON.stringify(Object.fromEntries(notDone))}`);
  if (c.conversations !== done) problems.push(`${c.conversations} conversations for ${done} events done (one thread each)`);
  if (c.clientMessages !== done) problems.push(`${c.clientMessages} client messages for ${done} events done`);
  if (c.doneWithoutMessage > 0) problems.push(`${c.doneWithoutMessage} events done without their client message`);
  if (c.sharedMessages > 0) problems.push(`${c.sharedMessages} client messages shared by two events`);
  if (c.unanswered > 0) problems.push(`${c.unanswered} client messages without a reply`);
  if (c.answeredTwice > 0) problems.push(`${c.answeredTwice} client messages with more than one reply`);
  if (c.strayReplies > 0) problems.push(`${c.strayReplies} replies answering no client message`);
  if (c.turns !== c.clientMessages || c.openTurns > 0) problems.push(`${c.turns} turns (${c.openTurns} not done) for ${c.clientMessages} client messages`);
  if (c.repliesWithoutOutbox > 0) problems.push(`${c.repliesWithoutOutbox} replies not in the outbox`);
  const unsent = Object.entries(c.outboxStatuses).filter(([status]) => status !== 'sent');
  if (unsent.length > 0) problems.push(`outbox rows not sent: ${JSON.stringify(Object.fromEntries(unsent))}${c.outboxError ? ` (${c.outboxError})` : ''}`);
  return problems;
}
