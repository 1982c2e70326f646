import { Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { Clock } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { EventBus } from '../../platform/events/event-bus.js';
import { logger } from '../../platform/observability/logger.js';
import { unscopedOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { DEFAULT_PURPOSE, insertDatedLlmRun } from '../agent/index.js';
import { BillingService, dayOf, periodOf, previousPeriod } from '../billing/index.js';
import { ConversationsService, countOrgConversations, insertDatedConversation, insertDatedExchange } from '../conversations/index.js';
import { backdateOrgActivation } from '../orgs/index.js';
import { AssignmentsService, backdateOrgAssignments, SpecialistsService } from '../specialists/index.js';
import { UsersService } from '../users/index.js';
import { DEMO_ORG_PRIMARY_SPECIALIST } from './demo.data.js';
import { DEMO_CLIENT_SINCE_DAYS, DEMO_HISTORY_DAYS, DEMO_MODEL, DEMO_SECOND_SPECIALIST, DEMO_THREADS, type DemoThread } from './demo.life.data.js';
import { demoPrincipal } from './demo.principal.js';

const DAY_MS = 86_400_000;
/** Instances started together: one writes the lively data, the others find it there. */
const DEMO_LIFE_LOCK = 7_410_226;

export interface DemoPeople {
  orgId: string;
  amId: string;
  expertId: string;
  clientId: string;
  orgAdminId: string;
}

/**
 * The demo org, alive (README "Demo data"): a client for weeks, two Specialists, a month of
 * conversations on the web and two channels, one in every status of spec 3.1, an escalation on
 * the Expert attention list, the cost ledger of every Specialist reply, last month's invoice, and
 * the notifications these produce. The history is written with its dates; what happens "now"
 * (the escalation, the Experts' follow-ups, resolving, snoozing, the invoice run) goes through
 * the real services, which write the queue item, notifications and audit rows as in production.
 * Runs once: when the demo org has no conversation yet.
 */
@Injectable()
export class DemoLife {
  constructor(
    private readonly dbService: DbService,
    private readonly users: UsersService,
    private readonly specialists: SpecialistsService,
    private readonly assignments: AssignmentsService,
    private readonly conversations: ConversationsService,
    private readonly billing: BillingService,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  async seed(people: DemoPeople, now = this.clock.now()): Promise<boolean> {
    const claimed = await this.dbService.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${DEMO_LIFE_LOCK})`);
      return (await countOrgConversations(tx, demoScope(people))) === 0;
    });
    if (!claimed) return false;
    const started = performance.now();
    const am = await demoPrincipal(this.users, people.amId);
    const second = (await this.specialists.findBySlug(DEMO_SECOND_SPECIALIST))!;
    const scope = unscopedOrg(people.orgId, 'the demo life');
    const assigned = await this.assignments.list(scope);
    if (!assigned.some((a) => a.specialistId === second.id)) await this.assignments.assign(am, scope, { specialistId: second.id });
    await this.dateBack(people, new Date(now.getTime() - DEMO_CLIENT_SINCE_DAYS * DAY_MS));

    const osas = await this.assignments.list(scope);
    const primary = osas.find((a) => a.specialist.slug === DEMO_ORG_PRIMARY_SPECIALIST)!;
    const other = osas.find((a) => a.specialistId === second.id)!;
    const threadIds: string[] = [];
    for (const [index, thread] of DEMO_THREADS.entries()) {
      const osa = thread.specialist === 'primary' ? primary : other;
      threadIds.push(await this.writeHistory(people, thread, { assignmentId: osa.id, specialistId: osa.specialistId }, index, now));
    }

    const expert = await demoPrincipal(this.users, people.expertId);
    for (const [index, thread] of DEMO_THREADS.entries()) {
      const id = threadIds[index]!;
      const author = await demoPrincipal(this.users, thread.author === 'client' ? people.clientId : people.orgAdminId);
      if (thread.outcome === 'escalated') await this.conversations.escalate(author, id, thread.followUp);
      if (thread.outcome === 'expert_reply') await this.conversations.send(expert, id, { content: thread.followUp! });
      if (thread.outcome === 'resolved') await this.conversations.changeStatus(expert, id, { kind: 'resolve' });
      if (thread.outcome === 'snoozed') {
        await this.conversations.changeStatus(expert, id, { kind: 'set_status', to: 'snoozed' }, { snoozeUntil: new Date(now.getTime() + 3 * DAY_MS).toISOString() });
      }
    }

    const period = previousPeriod(periodOf(dayOf(now)));
    await this.billing.generateInvoices(period);
    const [invoice] = (await this.billing.invoices(unscopedOrg(people.orgId, 'the demo life'), { limit: 1 })).items;
    // Outside a transaction, so the notifications are written before the seed answers.
    if (invoice) {
      await this.events.emit('notifications.requested', {
        userIds: [people.orgAdminId, people.amId],
        notice: {
          type: 'billing.invoice_issued',
          title: `The invoice for ${period} is ready`,
          message: `Acme Corporation: one line per Specialist, ${(invoice.totalCents / 100).toFixed(2)} ${invoice.currency}, due on ${invoice.dueOn}.`,
          meta: { orgId: people.orgId, invoiceId: invoice.id, period },
        },
      });
    }
    await this.events.emit('notifications.requested', {
      userIds: [people.amId],
      notice: {
        type: 'assignment.specialist_assigned',
        title: `${second.name} joined Acme Corporation`,
        message: `Acme Corporation now works with two Specialists: ${primary.specialist.name} and ${second.name}.`,
        meta: { orgId: people.orgId, assignmentId: other.id },
      },
    });
    logger.info({ ms: Math.round(performance.now() - started), conversations: threadIds.length }, 'demo activity seeded');
    return true;
  }

  /**
   * The org has been a client since `since`: its activation, its Specialists' assignments and the
   * rate versions they bill by are dated then, so last month's invoice has its lines.
   */
  private async dateBack(people: DemoPeople, since: Date): Promise<void> {
    await this.dbService.transaction(async (tx) => {
      await backdateOrgActivation(tx, people.orgId, since);
      await backdateOrgAssignments(tx, demoScope(people), since);
    });
  }

  /**
   * A thread's dated history: each exchange a client message, its turn done, the Specialist's
   * reply and the ledger row of the model call that made it. Spread over the last month.
   */
  private async writeHistory(people: DemoPeople, thread: DemoThread, osa: { assignmentId: string; specialistId: string }, index: number, now: Date): Promise<string> {
    const startDay = DEMO_HISTORY_DAYS - Math.floor((index * DEMO_HISTORY_DAYS) / DEMO_THREADS.length);
    const at = (exchange: number, minutes: number) => new Date(now.getTime() - Math.max(1, startDay - exchange * 2) * DAY_MS + (9 * 60 + index * 17 + minutes) * 60_000);
    const web = thread.channel === 'web';
    const authorId = thread.author === 'client' ? people.clientId : people.orgAdminId;
    const last = at(thread.exchanges.length - 1, 1);
    return this.dbService.transaction(async (tx) => {
      const conversation = await insertDatedConversation(tx, demoScope(people), {
        assignmentId: osa.assignmentId,
        specialistId: osa.specialistId,
        subject: thread.subject,
        channel: thread.channel,
        autoResponded: true,
        createdBy: web ? authorId : null,
        createdAt: at(0, 0),
        updatedAt: last,
        lastMessageAt: last,
      });
      for (const [n, [question, answer]] of thread.exchanges.entries()) {
        const asked = await insertDatedExchange(tx, demoScope(people), {
          conversationId: conversation.id,
          clientId: web ? authorId : null,
          specialistId: osa.specialistId,
          question,
          answer,
          askedAt: at(n, 0),
          answeredAt: at(n, 1),
          ...(!web && { idempotencyKey: `${thread.channel}:demo-${index}-${n}` }),
        });
        await insertDatedLlmRun(tx, demoScope(people), {
          osaId: osa.assignmentId,
          conversationId: conversation.id,
          messageId: asked.id,
          purpose: DEFAULT_PURPOSE,
          provider: DEMO_MODEL.provider,
          model: DEMO_MODEL.model,
          inputTokens: 900 + 40 * question.length,
          outputTokens: 4 * answer.length,
          latencyMs: 1200 + 10 * answer.length,
          createdAt: at(n, 1),
        });
      }
      return conversation.id;
    });
  }
}

/** The demo org's history is written by the seed itself, not by a request or a job of the org. */
function demoScope(people: DemoPeople): OrgScope {
  return unscopedOrg(people.orgId, 'the demo seed writes the demo org its past');
}
