import { setTimeout as sleep } from 'node:timers/promises';
import { countReplies, deleteMessages, describeQueue, insertQueueItems, newestQueueItemIds, vacuumAnalyzeQueue, type BenchOrg, type ReplyCounts } from './conversations-data.js';
import { startCpuSample } from './cpu.js';
import { isRecord, request, snippet } from './http.js';
import type { LoadTarget, Measurement, RunCounts } from './load.js';
import type { ChildHandle } from './process.js';
import { watchReplies, type PushCounts } from './reply-watch.js';
import type { ConversationResult, Report } from './report.js';

/*
 * The conversation measurements: "client message sent to reply stored and pushed" over the bench
 * orgs, and the Expert attention list on a large queue_items table, each against a bare baseline.
 */

/** Measures one target (warm-up, measured run); `onMeasured` runs right after the measured run. */
export type MeasureOne = (round: number, target: LoadTarget, owner: ChildHandle, onMeasured?: () => void) => Promise<Measurement>;

export interface ConversationsContext {
  report: Report;
  dbUrl: string;
  /** The server (the first instance of a cluster: the account manager's socket connects there). */
  serverBase: string;
  /** Every instance, when several serve: the load goes round-robin over them. */
  serverBases?: string[];
  server: ChildHandle;
  measureOne: MeasureOne;
  startBaseline: (file: string, env: NodeJS.ProcessEnv, readyPath: string, headers?: Record<string, string>) => Promise<{ child: ChildHandle; base: string }>;
  log: (message: string) => void;
  /**
   * The embedded database (the `pglite` part): runs `fn`, which reads or writes the database,
   * with the server stopped, and starts it again (`server` and `serverBase` then name the new
   * one). Unset: the database is read beside the running server.
   */
  dataAccess?: (fn: () => Promise<void>) => Promise<void>;
}

interface Login {
  token: string;
  sub: string;
}

const PAGE = 50;
/** How long the stored counts may take to settle once the load stops. */
const SETTLE_TIMEOUT_MS = 15_000;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** A sent message answered with its Specialist reply: the server's DTO and the baseline's rows alike. */
function isAnsweredMessage(body: string): boolean {
  const json = parse(body);
  return isRecord(json) && json.role === 'client' && isRecord(json.reply) && json.reply.role === 'specialist';
}

const bothPhases = (m: Measurement, pick: (c: RunCounts) => number) => pick(m) + (m.warmup ? pick(m.warmup) : 0);

/**
 * POST /api/conversations/:id/messages round-robin over the bench orgs' conversations, each with
 * its client's token, against the baseline (unless `names.baseline` is null: the server alone);
 * then SQL counts (one reply per client message) and the replies pushed to the account manager's
 * socket. The threads are emptied first, so the counts are this run's.
 */
export async function measureConversations(
  ctx: ConversationsContext,
  orgs: BenchOrg[],
  am: Login,
  baselineEnv: NodeJS.ProcessEnv,
  names: { baseline: string | null; server: string },
): Promise<ConversationResult> {
  const { report, log } = ctx;
  const c = report.settings.conversations;
  const orgIds = orgs.map((o) => o.orgId);
  let seq = 0;
  const next = (prefix: string) => () => {
    const n = seq++;
    const org = orgs[n % orgs.length]!;
    return {
      path: `${prefix}/conversations/${org.conversationId}/messages`,
      headers: bearer(org.clientToken),
      body: { content: `Bench message ${n}: could you confirm that you received it?` },
    };
  };
  const probe = async (label: string, base: string, prefix: string) => {
    const r = next(prefix)();
    const answer = await request(`${base}${r.path}`, { method: 'POST', headers: r.headers, body: r.body });
    if (answer.status !== 201 || !isAnsweredMessage(answer.text)) {
      throw new Error(`${label} POST ${r.path} as the org's client answered ${answer.status}, expected 201 with the reply: ${snippet(answer.text)}`);
    }
  };
  const target = (name: string, base: string | string[], prefix: string): LoadTarget => ({
    name,
    url: Array.isArray(base) ? base.map((b) => `${b}/`) : `${base}/`,
    method: 'POST',
    next: next(prefix),
    verifyBody: isAnsweredMessage,
    connections: c.connections,
  });

  // Baseline first; its rows go before the server runs, so both start from empty threads.
  if (names.baseline !== null) {
    const { child, base } = await ctx.startBaseline('fastify-conversation-message.js', baselineEnv, '/ready');
    await probe('baseline', base, '');
    await ctx.measureOne(1, target(names.baseline, base, ''), child);
    await child.stop();
  }
  // The embedded database's orgs are new (no thread has a message yet): nothing to delete.
  const baselineRowsDeleted = ctx.dataAccess ? 0 : await deleteMessages(ctx.dbUrl, orgIds);
  const bases = ctx.serverBases ?? [ctx.serverBase];

  // The account manager's socket joins the org rooms of its orgs when it connects: after the setup.
  const watch = await watchReplies(ctx.serverBase, { id: am.sub, token: am.token }, orgIds);
  for (const base of bases) await probe('server', base, '/api');
  const cpuSample = startCpuSample(ctx.server.servingPids());
  let cpu: ReturnType<typeof cpuSample.stop> | undefined;
  const m = await ctx.measureOne(1, target(names.server, bases.length > 1 ? bases : ctx.serverBase, '/api'), ctx.server, () => {
    cpu = cpuSample.stop();
  });
  cpu ??= cpuSample.stop();

  // Requests autocannon abandoned at the end still finish on the server: wait for the counts to settle.
  const settleStart = performance.now();
  let counts: ReplyCounts | undefined;
  const { dataAccess } = ctx;
  let push: PushCounts;
  if (dataAccess) {
    // The embedded database is read with its server stopped: the socket closes first (after the
    // pushes went quiet), then the server stops (its requests finish), then the counts.
    push = await watch.finish(async () => {
      await dataAccess(async () => {
        counts = await countReplies(ctx.dbUrl, orgIds);
      });
      return counts?.replyIds ?? [];
    }, c.pushGraceS * 1000);
  } else {
    let settled = await countReplies(ctx.dbUrl, orgIds);
    while ((settled.unanswered > 0 || Object.keys(settled.openTurns).length > 0) && performance.now() - settleStart < SETTLE_TIMEOUT_MS) {
      await sleep(250);
      settled = await countReplies(ctx.dbUrl, orgIds);
    }
    counts = settled;
    push = await watch.finish(settled.replyIds, c.pushGraceS * 1000);
  }
  const settleSeconds = dataAccess ? 0 : (performance.now() - settleStart) / 1000;
  if (!counts) throw new Error('conversations: the counts were not read');
  const { replyIds: _ids, ...stored } = counts;
  const sent = bothPhases(m, (x) => x.sent) + bases.length;
  const answered201 = bothPhases(m, (x) => x.count2xx) + bases.length;
  // The server's CPU over the warm-up and the measured run, per message answered in them.
  const answeredInSample = bothPhases(m, (x) => x.count2xx);
  const cpuMsPerMessage = cpu.serverPct !== null && answeredInSample > 0 ? ((cpu.serverPct / 100) * cpu.wallS * 1000) / answeredInSample : null;
  const result: ConversationResult = {
    instances: bases.length,
    orgs: orgs.length,
    sent,
    answered201,
    baselineRowsDeleted,
    counts: stored,
    settleSeconds,
    push,
    cpu,
    cpuMsPerMessage,
  };
  log(
    `  ${stored.clientMessages} client messages, ${stored.replies} replies (${stored.unanswered} unanswered), ${stored.ledgerRows} llm_runs rows; ` +
      `pushed ${push.received}/${push.expected} (${push.lost} lost, ${push.duplicated} duplicated); ` +
      `server CPU ${cpuMsPerMessage === null ? '-' : cpuMsPerMessage.toFixed(1)} ms per message`,
  );

  const problems: string[] = [];
  if (stored.unanswered > 0) problems.push(`${stored.unanswered} client messages without a reply`);
  if (stored.answeredTwice > 0) problems.push(`${stored.answeredTwice} client messages with more than one reply`);
  if (stored.strayReplies > 0) problems.push(`${stored.strayReplies} Specialist rows answering no client message`);
  if (Object.keys(stored.openTurns).length > 0) problems.push(`turns not done: ${JSON.stringify(stored.openTurns)}`);
  if (stored.clientMessages < answered201 || stored.clientMessages > sent) {
    problems.push(`${stored.clientMessages} client messages stored, expected between the ${answered201} answered 201 and the ${sent} sent`);
  }
  if (push.lost > 0) problems.push(`${push.lost} replies never pushed to the account manager's socket`);
  if (push.duplicated > 0) problems.push(`${push.duplicated} replies pushed more than once`);
  if (push.unexpected > 0) problems.push(`${push.unexpected} pushed replies not stored`);
  if (push.disconnects.length > 0) problems.push(`the account manager's socket disconnected (${push.disconnects.join(', ')})`);
  if (problems.length > 0) {
    const message = `conversations${bases.length > 1 ? ` on ${bases.length} instances` : ''}: ${problems.join(', ')}`;
    report.failures.push(message);
    console.error(`[bench] ${message}`);
  }
  return result;
}

/**
 * GET /api/expert-queue with 100,000 items, as the demo Expert (org-wide grants on some bench
 * orgs) and as a superadmin (every org), each against the baseline's single SELECT. With
 * `setUp` false the items are there already (an earlier run inserted them) and the baselines are
 * not measured again: the server alone (e.g. on several instances). `baselines` false: the items
 * are inserted, the baselines not measured (the embedded database's server, against PostgreSQL's).
 */
export async function measureQueue(
  ctx: ConversationsContext,
  expert: Login,
  superadmin: Login,
  baselineEnv: NodeJS.ProcessEnv,
  names: { expertBaseline: string; expert: string; allBaseline: string; all: string },
  setUp = true,
  baselines = setUp,
): Promise<void> {
  const { report, log, dbUrl } = ctx;
  const c = report.settings.conversations;
  let expertOrgIds: string[] = [];
  const expected = { expert: [] as string[], all: [] as string[] };
  const readDatabase = async () => {
    if (setUp) {
      log(`attention list: ${c.queueItems} queue items with their conversations, the demo Expert granted every ${c.expertGrantEvery}. bench org ...`);
      let t = performance.now();
      await insertQueueItems(dbUrl, c.queueItems, expert.sub, c.expertGrantEvery);
      const insertSeconds = (performance.now() - t) / 1000;
      t = performance.now();
      await vacuumAnalyzeQueue(dbUrl);
      const vacuumAnalyzeSeconds = (performance.now() - t) / 1000;
      const { expertOrgIds: ids, ...state } = await describeQueue(dbUrl, expert.sub);
      expertOrgIds = ids;
      report.queue = { ...state, insertSeconds, vacuumAnalyzeSeconds };
      log(
        `  queue_items: ${state.items} rows (${state.itemsForExpert} in the Expert's ${state.expertOrgs} orgs, ${state.totalSize}), ` +
          `inserted in ${insertSeconds.toFixed(1)} s, vacuum analyze ${vacuumAnalyzeSeconds.toFixed(1)} s`,
      );
      log(`  plan as the Expert: ${state.expertPlan.plan}; as a superadmin: ${state.allPlan.plan}`);
    } else {
      expertOrgIds = (await describeQueue(dbUrl, expert.sub)).expertOrgIds;
    }
    expected.expert = await newestQueueItemIds(dbUrl, expertOrgIds, PAGE);
    expected.all = await newestQueueItemIds(dbUrl, null, PAGE);
  };
  // The embedded database: with its server stopped (and started again afterwards).
  if (ctx.dataAccess) await ctx.dataAccess(readDatabase);
  else await readDatabase();

  const expertOrgs = new Set(expertOrgIds);
  const pageOf = (body: string, orgs?: Set<string>): string[] | undefined => {
    const json = parse(body);
    if (!isRecord(json) || !Array.isArray(json.items) || json.items.length !== PAGE) return undefined;
    const items = json.items.filter(isRecord);
    const orgOf = (i: Record<string, unknown>) => String(i.orgId ?? i.org_id);
    if (items.length !== PAGE || (orgs && !items.every((i) => orgs.has(orgOf(i))))) return undefined;
    return items.map((i) => String(i.id));
  };
  const who = [
    { key: 'expert' as const, login: expert, orgs: expertOrgs },
    { key: 'all' as const, login: superadmin, orgs: undefined },
  ];
  // One request each before the load: the newest 50 items of the caller's orgs, in order.
  const probe = async (label: string, url: string) => {
    for (const w of who) {
      const answer = await request(url, { headers: bearer(w.login.token) });
      const ids = pageOf(answer.text, w.orgs);
      if (answer.status !== 200 || !ids || ids.join() !== expected[w.key].join()) {
        throw new Error(`${label} GET ${url} as ${w.key === 'expert' ? 'the Expert' : 'a superadmin'} answered ${answer.status}, expected the newest ${PAGE} items: ${snippet(answer.text)}`);
      }
    }
  };
  const target = (name: string, url: string | string[], w: (typeof who)[number]): LoadTarget => ({
    name,
    url,
    headers: bearer(w.login.token),
    verifyBody: (body) => pageOf(body, w.orgs) !== undefined,
    connections: c.connections,
  });

  if (baselines) {
    const { child, base } = await ctx.startBaseline('fastify-expert-queue.js', baselineEnv, '/expert-queue', bearer(superadmin.token));
    await probe('baseline', `${base}/expert-queue`);
    await ctx.measureOne(1, target(names.expertBaseline, `${base}/expert-queue`, who[0]!), child);
    await ctx.measureOne(1, target(names.allBaseline, `${base}/expert-queue`, who[1]!), child);
    await child.stop();
  }
  const urls = (ctx.serverBases ?? [ctx.serverBase]).map((b) => `${b}/api/expert-queue`);
  for (const url of urls) await probe('server', url);
  const url = urls.length > 1 ? urls : urls[0]!;
  await ctx.measureOne(1, target(names.expert, url, who[0]!), ctx.server);
  await ctx.measureOne(1, target(names.all, url, who[1]!), ctx.server);
}
