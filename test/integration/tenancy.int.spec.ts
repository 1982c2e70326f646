import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgRole } from '../../src/contracts/roles.js';
import { OrgMemberInvitationsRepository } from '../../src/modules/admin/org-member-invitations.repository.js';
import { LlmRunsRepository } from '../../src/modules/agent/llm-runs.repository.js';
import { BillingRepository } from '../../src/modules/billing/billing.repository.js';
import { ConversationStatsRepository } from '../../src/modules/conversations/conversation-stats.repository.js';
import { InvitesRepository } from '../../src/modules/onboarding/onboarding.repository.js';
import { ToolPermissionsRepository } from '../../src/modules/agent/tool-permissions.repository.js';
import { ChannelsRepository } from '../../src/modules/channels/channels.repository.js';
import { ClientBriefsRepository } from '../../src/modules/client-briefs/client-briefs.repository.js';
import { ExpertsRepository } from '../../src/modules/experts/experts.repository.js';
import { ConversationsRepository } from '../../src/modules/conversations/conversations.repository.js';
import type { MessageRow } from '../../src/modules/conversations/conversations.tables.js';
import { AssignmentsRepository } from '../../src/modules/specialists/assignments.repository.js';
import { osaRebrandAliases } from '../../src/modules/specialists/assignments.tables.js';
import { UsersService } from '../../src/modules/users/index.js';
import { UsersRepository } from '../../src/modules/users/users.repository.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { unscopedOrg, type OrgScope } from '../../src/platform/tenancy/org-scope.js';
import { demoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Org B cannot see org A, repository by repository: each case reads or changes a row of org A
 * with org B's scope (nothing, and the row stays as it was), then with org A's (the row: the case
 * can fail).
 */
describe('tenant repositories: org B cannot see or change org A', () => {
  let app: TestApp;
  let a: OrgScope;
  let b: OrgScope;
  const ids = {
    brief: '',
    conversation: '',
    sent: '',
    reply: '',
    key: '',
    queueItem: '',
    integration: '',
    outbound: '',
    heldOutbound: '',
    thread: '',
    grant: '',
    admin: '',
    invoice: '',
    subscription: '',
    osa: randomUUID(),
    message: randomUUID(),
    invite: '',
    invitation: '',
    assignment: '',
    specialist: '',
  };
  let messageAt: Date;
  let sentRow: MessageRow;
  let adminRole: OrgRole;
  const PERIOD = '2001-01';
  const PROVIDER_INVOICE = 'in_tenancy';
  const REPLY_KEY = 'tenancy-reply-target';
  const get = <T>(type: new (...args: never[]) => T): T => app.running.app.get(type as never);

  beforeAll(async () => {
    // No sweeps: the outbox rows below are org A's to claim here, not the dispatcher's.
    app = await startTestApp({ periodic: false });
    const cast = await demoCast(app);
    a = unscopedOrg(cast.acmeId, 'test: org A');
    b = unscopedOrg(cast.hooliId, 'test: org B');
    const admin = (await get(UsersService).findByEmail('org_admin@acme.demo.invalid'))!;
    ids.brief = (await get(ClientBriefsRepository).insert(a, { title: 'Tone', content: 'Formal', createdBy: admin.id, updatedBy: admin.id })).id;
    ids.integration = (await get(ChannelsRepository).insertIntegration(a, { channel: 'chat-a', externalId: 'T-TENANCY', createdBy: admin.id })).id;
    const conversation = await app.post('/api/conversations', { subject: 'Tenancy' }, { token: cast.member });
    expect(conversation.status).toBe(201);
    ids.conversation = conversation.body.id as string;
    await get(ToolPermissionsRepository).upsert(a, { toolName: 'calendar_list_events', enabled: true, updatedBy: admin.id });
    // The demo seed gives the demo Expert an org-wide grant on org A.
    ids.grant = (await get(ExpertsRepository).listForOrg(a))[0]!.id;
    ids.admin = admin.id;
    adminRole = (await get(UsersRepository).membership(a, admin.id))!.orgRole;
    // The demo seed assigns org A its primary Specialist.
    const [osa] = await get(AssignmentsRepository).listActive(a);
    ids.assignment = osa!.id;
    ids.specialist = osa!.specialistId;
    const sent = await app.post(`/api/conversations/${ids.conversation}/messages`, { content: 'Counted' }, { token: cast.member, headers: { 'idempotency-key': 'tenancy' } });
    expect(sent.status).toBe(201);
    messageAt = new Date(sent.body.createdAt as string);
    // The message, its turn and reply, a correction of the reply (a revision) and an attention-list item, all of org A.
    ids.sent = sent.body.id as string;
    ids.reply = sent.body.reply.id as string;
    const corrected = await app.patch(`/api/conversations/${ids.conversation}/messages/${ids.reply}`, { content: 'Counted, corrected', reason: 'tenancy' }, { token: cast.superadmin });
    expect(corrected.status).toBe(200);
    expect((await app.post(`/api/conversations/${ids.conversation}/escalate`, { reason: 'tenancy' }, { token: cast.member })).status).toBe(201);
    const conversations = get(ConversationsRepository);
    sentRow = (await conversations.findMessage(a, ids.conversation, ids.sent))!;
    ids.key = sentRow.idempotencyKey!;
    ids.queueItem = (await conversations.findQueueItem(a, ids.conversation))!.id;
    // The reply's outbox rows (one not yet due, one held), a channel thread, a reply target and a binding, all of org A.
    const channels = get(ChannelsRepository);
    const outbound = { conversationId: ids.conversation, messageId: ids.reply, content: 'Counted, corrected' };
    const pending = (await channels.insertOutbound(a, { ...outbound, channel: 'chat-a', target: { channel: 'C1' }, nextAttemptAt: new Date(Date.now() + 86_400_000) }))!;
    expect(pending.orgId).toBe(a.orgId);
    ids.outbound = pending.id;
    ids.heldOutbound = (await channels.insertOutbound(a, { ...outbound, channel: 'email', target: { from: 'tenancy@workspace.invalid' }, status: 'held' }))!.id;
    const thread = (await channels.insertThread(a, { channel: 'email', threadKey: '<tenancy@thread.invalid>', conversationId: ids.conversation }))!;
    expect(thread.orgId).toBe(a.orgId);
    ids.thread = thread.id;
    await channels.keepReplyTarget(a, { conversationId: ids.conversation, channel: 'email', messageKey: REPLY_KEY, target: { to: 'client@acme.demo.invalid' } });
    await channels.replaceBindings(a, ids.integration, 'chat-a', [{ kind: 'workspace', value: 'T-TENANCY', verified: false }]);
    const billing = get(BillingRepository);
    await billing.insertAccount(a, { provider: 'manual', providerCustomerId: 'cus_tenancy' });
    const line = { assignmentId: randomUUID(), specialistId: randomUUID(), description: 'Tenancy', daysActive: 31, daysInMonth: 31, amountCents: 100, currency: 'EUR', periods: [] };
    const invoice = await billing.insertInvoice(a, { period: PERIOD, currency: 'EUR', totalCents: 100, issuedAt: new Date(), dueOn: '2001-02-14' }, [line]);
    ids.invoice = invoice!.id;
    await billing.upsertProviderInvoice(a, { providerInvoiceId: PROVIDER_INVOICE, provider: 'stripe', period: PERIOD, totalCents: 100, amountRemainingCents: 100, currency: 'EUR' });
    const subscription = await billing.insertSubscription(a, {
      assignmentId: randomUUID(),
      specialistId: randomUUID(),
      providerSubscriptionId: 'sub_tenancy',
      plan: 'tenancy',
      startsOn: '2001-01-01',
    });
    ids.subscription = subscription!.id;
    await get(LlmRunsRepository).insert(a, { osaId: ids.osa, messageId: ids.message, purpose: 'reply', provider: 'fake', model: 'fake', outcome: 'ok' });
    ids.invite = (await get(InvitesRepository).ensure(a, { tokenSealed: 'sealed', tokenHash: 'tenancy-invite' })).id;
    const expiresAt = new Date(Date.now() + 86_400_000);
    ids.invitation = (
      await get(OrgMemberInvitationsRepository).put(a, { userId: admin.id, email: admin.email, orgRole: 'member', invitedBy: admin.id, tokenHash: 'tenancy-invitation', expiresAt })
    ).id;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  /** [name, the query under a scope: undefined when it finds or changes nothing] */
  const cases: Array<[string, (scope: OrgScope) => Promise<unknown>]> = [
    ['client briefs: list', async (s) => (await get(ClientBriefsRepository).list(s, { limit: 50 })).find((r) => r.id === ids.brief)],
    ['client briefs: oldest first', async (s) => (await get(ClientBriefsRepository).oldestFirst(s, 50)).find((r) => r.id === ids.brief)],
    ['client briefs: update', (s) => get(ClientBriefsRepository).update(s, ids.brief, { title: 'Tone' })],
    ['conversations: lock', (s) => get(DbService).transaction(() => get(ConversationsRepository).lock(s, ids.conversation))],
    ['conversations: update', (s) => get(ConversationsRepository).update(s, ids.conversation, {})],
    ['conversations: by ids', async (s) => (await get(ConversationsRepository).conversationsByIds([s], [ids.conversation]))[0]],
    ['messages: find', (s) => get(ConversationsRepository).findMessage(s, ids.conversation, ids.sent)],
    ['messages: by idempotency key', (s) => get(ConversationsRepository).findByIdempotencyKey(s, ids.conversation, ids.key)],
    ['messages: reply', (s) => get(ConversationsRepository).findReply(s, ids.conversation, ids.sent)],
    ['messages: thread', async (s) => (await get(ConversationsRepository).thread(s, ids.conversation, { includeInternal: true, limit: 50 }))[0]],
    ['messages: history', async (s) => (await get(ConversationsRepository).historyBefore(s, ids.conversation, ids.reply, 20))[0]],
    ['messages: client senders', async (s) => (await get(ConversationsRepository).clientSenders(s, ids.conversation))[0]],
    ['messages: search matches', async (s) => (await get(ConversationsRepository).searchMatches([s], [ids.conversation], { q: 'Counted', includeInternal: true }))[0]],
    ['messages: match excerpts', async (s) => (await get(ConversationsRepository).matchExcerpts([s], [ids.conversation], 'Counted'))[0]],
    ['messages: update', (s) => get(ConversationsRepository).updateMessage(s, ids.sent, { isInternal: false })],
    ['message revisions: list', async (s) => (await get(ConversationsRepository).revisions(s, ids.reply))[0]],
    ['turns: find', (s) => get(ConversationsRepository).findTurn(s, ids.sent)],
    ['queue items: find', (s) => get(ConversationsRepository).findQueueItem(s, ids.conversation)],
    ['queue items: update', (s) => get(ConversationsRepository).updateQueueItem(s, ids.queueItem, {})],
    ['channels: find integration', (s) => get(ChannelsRepository).findIntegration(s, ids.integration)],
    ['channels: integration by channel', (s) => get(ChannelsRepository).findIntegrationByChannel(s, 'chat-a')],
    ['channels: list integrations', async (s) => (await get(ChannelsRepository).listIntegrations(s)).find((r) => r.id === ids.integration)],
    ['channels: update integration', (s) => get(ChannelsRepository).updateIntegration(s, ids.integration, { externalId: 'T-TENANCY' })],
    ['channels: bindings of integrations', async (s) => (await get(ChannelsRepository).bindingsOf(s, [ids.integration]))[0]],
    ['channel threads: of a conversation', (s) => get(ChannelsRepository).threadOfConversation(s, ids.conversation)],
    ['reply targets: of a message', (s) => get(ChannelsRepository).replyTargetOf(s, ids.conversation, REPLY_KEY)],
    ['outbox: by message', async (s) => (await get(ChannelsRepository).findOutboundByMessage(s, ids.reply))[0]],
    ['outbox: statuses', async (s) => (await get(ChannelsRepository).outboundStatuses(s, [ids.reply]))[0]],
    ['outbox: lock held', (s) => get(DbService).transaction(() => get(ChannelsRepository).lockHeld(s, ids.heldOutbound))],
    ['expert grants: list', async (s) => (await get(ExpertsRepository).listForOrg(s)).find((r) => r.id === ids.grant)],
    ['tool permissions: list', async (s) => (await get(ToolPermissionsRepository).listForOrg(s)).find((r) => r.toolName === 'calendar_list_events')],
    ['billing: find account', async (s) => ofA(await get(BillingRepository).findAccount(s))],
    ['billing: lock account', (s) => get(DbService).transaction(async () => ofA(await get(BillingRepository).lockAccount(s)))],
    ['billing: update account', async (s) => ofA(await get(BillingRepository).updateAccount(s, {}))],
    ['billing: find invoice', (s) => get(BillingRepository).findInvoice(s, ids.invoice)],
    ['billing: invoice of a month', (s) => get(BillingRepository).findInvoiceOf(s, PERIOD, 'EUR')],
    ['billing: update invoice', (s) => get(BillingRepository).updateInvoice(s, ids.invoice, { status: 'open' })],
    ['billing: update invoice by ref', (s) => get(BillingRepository).updateInvoiceByRef(s, ids.invoice, { status: 'open' })],
    ['billing: list invoices', async (s) => (await get(BillingRepository).listInvoices(s, { limit: 50 })).find((r) => r.id === ids.invoice)],
    ['billing: lines', async (s) => (await get(BillingRepository).linesOf(s, [ids.invoice]))[0]],
    ['billing: lock provider invoice', (s) => get(DbService).transaction(() => get(BillingRepository).lockProviderInvoice(s, PROVIDER_INVOICE))],
    ['billing: link provider invoices', async (s) => (await get(BillingRepository).linkProviderInvoices(s, PERIOD, 'EUR', ids.invoice))[0]],
    ['billing: provider invoices of ours', async (s) => (await get(BillingRepository).providerInvoicesOf(s, ids.invoice))[0]],
    ['billing: subscriptions', async (s) => (await get(BillingRepository).subscriptionsOf([s])).find((r) => r.id === ids.subscription)],
    ['llm runs: for a message', async (s) => (await get(LlmRunsRepository).forMessage(s, ids.message))[0]],
    ['llm runs: costs by OSA', async (s) => (await get(LlmRunsRepository).costsByOsa(s, new Date(0), new Date(Date.now() + 60_000))).find((r) => r.osaId === ids.osa)],
    ['conversation stats: messages per hour', async (s) => (await get(ConversationStatsRepository).messagesPer(s, 'hour', messageAt, new Date(messageAt.getTime() + 1)))[0]],
    ['onboarding invites: by org', async (s) => ((await get(InvitesRepository).findByOrg(s))?.id === ids.invite ? ids.invite : undefined)],
    ['onboarding invites: update', (s) => get(InvitesRepository).update(s, ids.invite, { otpFailedAttempts: 0 })],
    ['member invitations: find', (s) => get(OrgMemberInvitationsRepository).find(s, ids.admin)],
    ['assignments: list active', async (s) => (await get(AssignmentsRepository).listActive(s)).find((r) => r.id === ids.assignment)],
    ['assignments: find active', (s) => get(AssignmentsRepository).findActive(s, ids.assignment)],
    ['assignments: by Specialist', (s) => get(AssignmentsRepository).findActiveBySpecialist(s, ids.specialist)],
    ['assignments: by ids', async (s) => (await get(AssignmentsRepository).byIds(s, [ids.assignment]))[0]],
    ['assignments: update', (s) => get(AssignmentsRepository).update(s, ids.assignment, {})],
    ['assignments: rate history', async (s) => (await get(AssignmentsRepository).rateHistory(s, ids.assignment))[0]],
    ['assignments: of these orgs', async (s) => (await get(AssignmentsRepository).allForOrgs([s])).find((r) => r.id === ids.assignment)],
    ['assignments: rate history of these orgs', async (s) => (await get(AssignmentsRepository).rateHistoryFor([s], [ids.assignment]))[0]],
    ['memberships: membership', (s) => get(UsersRepository).membership(s, ids.admin)],
    ['memberships: members', async (s) => (await get(UsersRepository).membersOfOrg(s)).find((m) => m.userId === ids.admin)],
    ['memberships: members with roles', async (s) => (await get(UsersRepository).memberIdsWithRoles(s, [adminRole])).find((id) => id === ids.admin)],
    ['memberships: set role', async (s) => (await get(UsersRepository).setMembershipRole(s, ids.admin, adminRole)) || undefined],
  ];

  /** The row when it is org A's (org B has its own account). */
  const ofA = <T extends { orgId: string }>(row: T | undefined) => (row?.orgId === a.orgId ? row : undefined);

  it.each(cases)('%s', async (_name, query) => {
    expect(await query(b)).toBeUndefined();
    expect(await query(a)).toBeDefined();
  });

  it('deletes nothing of org A with org B scope', async () => {
    expect(await get(ChannelsRepository).deleteIntegration(b, ids.integration)).toBeUndefined();
    expect(await get(ClientBriefsRepository).delete(b, ids.brief)).toBeUndefined();
    expect(await get(ExpertsRepository).delete(b, ids.grant)).toBeUndefined();
    expect((await get(ExpertsRepository).listForOrg(a)).some((r) => r.id === ids.grant)).toBe(true);
    expect(await get(ChannelsRepository).findIntegration(a, ids.integration)).toBeDefined();
    expect((await get(ClientBriefsRepository).unscopedFindById(ids.brief))?.title).toBe('Tone');
  });

  it('claims, finishes and changes no turn, message or attention-list item of org A with org B scope', async () => {
    const conversations = get(ConversationsRepository);
    // A turn of org A that is queued (a system entry stands for its message: no agent runs on it).
    const entry = (await conversations.insertMessage(a, { conversationId: ids.conversation, role: 'system', senderId: null, content: 'Tenancy turn', isInternal: true }))!;
    expect(entry.orgId).toBe(a.orgId);
    await conversations.insertTurn(a, { messageId: entry.id, conversationId: ids.conversation });
    expect(await conversations.claimTurn(b, entry.id, 60_000)).toBeUndefined();
    expect((await conversations.findTurn(a, entry.id))?.status).toBe('queued');
    expect((await conversations.claimTurn(a, entry.id, 60_000))?.status).toBe('running');
    await conversations.finishTurn(b, entry.id, 'failed', 'org B');
    expect((await conversations.findTurn(a, entry.id))?.status).toBe('running');
    await conversations.finishTurn(a, entry.id, 'done');
    expect((await conversations.findTurn(a, entry.id))?.status).toBe('done');

    expect(await conversations.updateMessage(b, ids.sent, { content: 'Changed by org B' })).toBeUndefined();
    expect((await conversations.findMessage(a, ids.conversation, ids.sent))?.content).toBe('Counted');
    const item = (await conversations.findQueueItem(a, ids.conversation))!;
    expect(await conversations.updateQueueItem(b, ids.queueItem, { note: 'Changed by org B' })).toBeUndefined();
    expect((await conversations.findQueueItem(a, ids.conversation))?.note).toBe(item.note);
  });

  it('claims, sends and changes no outbox row, channel thread or binding of org A with org B scope', async () => {
    const channels = get(ChannelsRepository);
    const row = async (id: string) => (await channels.findOutboundByMessage(a, ids.reply)).find((r) => r.id === id)!;
    // Org B's scope makes org A's row due: it stays not due, so nobody claims it.
    await channels.updateOutbound(b, ids.outbound, { nextAttemptAt: new Date(0) });
    expect(await channels.claimOutbound(a, ids.outbound, 60_000)).toBeUndefined();
    await channels.updateOutbound(a, ids.outbound, { nextAttemptAt: new Date(0) });
    expect(await channels.claimOutbound(b, ids.outbound, 60_000)).toBeUndefined();
    expect((await row(ids.outbound)).status).toBe('pending');
    expect((await channels.claimOutbound(a, ids.outbound, 60_000))?.status).toBe('sending');

    await channels.markOutboundSent(b, ids.heldOutbound, 'org B');
    expect((await row(ids.heldOutbound)).status).toBe('held');
    await channels.markOutboundSent(a, ids.heldOutbound, null);
    expect((await row(ids.heldOutbound)).status).toBe('sent');

    await channels.updateThread(b, ids.thread, { completedAt: new Date() });
    expect((await channels.threadOfConversation(a, ids.conversation))?.completedAt).toBeNull();
    await channels.verifyBindings(b, ids.integration);
    expect((await channels.bindingsOf(a, ids.integration)).map((r) => r.verified)).toEqual([false]);
    await channels.verifyBindings(a, ids.integration);
    expect((await channels.bindingsOf(a, ids.integration)).map((r) => r.verified)).toEqual([true]);
  });

  it('spends no onboarding invite or member invitation of org A with org B scope', async () => {
    const invites = get(InvitesRepository);
    expect(await invites.takeOtpAttempt(b, ids.invite, 5)).toBeUndefined();
    expect(await invites.markOtpUsed(b, ids.invite, new Date())).toBe(false);
    expect(await invites.markCompleted(b, ids.invite, new Date())).toBe(false);
    const invite = (await invites.findByOrg(a))!;
    expect([invite.otpFailedAttempts, invite.otpUsedAt, invite.completedAt]).toEqual([0, null, null]);
    expect(await invites.takeOtpAttempt(a, ids.invite, 5)).toBe(1);
    await invites.returnOtpAttempt(b, ids.invite);
    expect((await invites.findByOrg(a))?.otpFailedAttempts).toBe(1);
    await invites.returnOtpAttempt(a, ids.invite);
    expect((await invites.findByOrg(a))?.otpFailedAttempts).toBe(0);
    const invitations = get(OrgMemberInvitationsRepository);
    expect(await invitations.markAccepted(b, ids.invitation, new Date())).toBe(false);
    expect((await invitations.find(a, ids.admin))?.acceptedAt).toBeNull();
  });

  it('removes no membership of org A with org B scope', async () => {
    const users = get(UsersRepository);
    expect(await users.removeMembership(b, ids.admin)).toBe(false);
    expect(await users.setMembershipRole(b, ids.admin, 'member')).toBe(false);
    expect((await users.membership(a, ids.admin))?.orgRole).toBe(adminRole);
  });

  it('moves no workspace alias of org A with org B scope', async () => {
    const repo = get(AssignmentsRepository);
    const rebrands = () => get(DbService).db.select().from(osaRebrandAliases).where(eq(osaRebrandAliases.assignmentId, ids.assignment));
    const before = (await repo.findActive(a, ids.assignment))!;
    const kept = (await rebrands()).length;
    await repo.replaceAlias(b, ids.assignment, before.emailAlias, 'tenancy-b@workspace.invalid');
    expect((await repo.findActive(a, ids.assignment))?.emailAlias).toBe(before.emailAlias);
    expect(await rebrands()).toHaveLength(kept);
    expect(await repo.unscopedFindActiveByAlias('tenancy-b@workspace.invalid')).toBeUndefined();
  });

  it('changes no subscription or provider invoice of org A with org B scope', async () => {
    const billing = get(BillingRepository);
    await billing.updateSubscription(b, ids.subscription, { plan: 'changed' });
    await billing.updateProviderInvoice(b, PROVIDER_INVOICE, { status: 'paid' });
    expect(await billing.deleteRunningSubscriptions(b, ['sub_tenancy'])).toBe(0);
    expect((await billing.subscriptionsOf([a])).find((r) => r.id === ids.subscription)?.plan).toBe('tenancy');
    expect((await billing.providerInvoicesOf(a, ids.invoice))[0]?.status).toBe('open');
    await billing.updateSubscription(a, ids.subscription, { plan: 'changed' });
    await billing.updateProviderInvoice(a, PROVIDER_INVOICE, { status: 'paid' });
    expect((await billing.subscriptionsOf([a])).find((r) => r.id === ids.subscription)?.plan).toBe('changed');
    expect((await billing.providerInvoicesOf(a, ids.invoice))[0]?.status).toBe('paid');
    expect(await billing.deleteRunningSubscriptions(a, ['sub_tenancy'])).toBe(1);
  });
});
