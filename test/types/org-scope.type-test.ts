/**
 * Compile-time proof of the tenancy rule (checked by `npm run typecheck`, never run): a tenant
 * query needs an OrgScope first, and only the named constructors make one.
 */
import { memberScope } from '../../src/platform/auth/org-scope.js';
import type { Principal } from '../../src/platform/auth/principal.js';
import { jobScope, requestScope, unscopedOrg, type OrgScope } from '../../src/platform/tenancy/org-scope.js';
import type { BillingRepository } from '../../src/modules/billing/billing.repository.js';
import type { ChannelsRepository } from '../../src/modules/channels/channels.repository.js';
import type { ClientBriefsRepository } from '../../src/modules/client-briefs/client-briefs.repository.js';
import type { ConversationsRepository } from '../../src/modules/conversations/conversations.repository.js';
import type { AssignmentsRepository } from '../../src/modules/specialists/assignments.repository.js';
import type { UsersRepository } from '../../src/modules/users/users.repository.js';

declare const briefs: ClientBriefsRepository;
declare const conversations: ConversationsRepository;
declare const channels: ChannelsRepository;
declare const assignments: AssignmentsRepository;
declare const users: UsersRepository;
declare const billing: BillingRepository;
declare const principal: Principal;
const orgId = '00000000-0000-4000-8000-000000000001';
const id = '00000000-0000-4000-8000-000000000002';

export async function withoutScope(): Promise<void> {
  // @ts-expect-error a tenant query without its scope does not compile
  await briefs.list({ limit: 10 });
  // @ts-expect-error an org id string is not a scope
  await briefs.update(orgId, id, { title: 'x' });
  // @ts-expect-error the row lock of a conversation names its org
  await conversations.lock(id);
  // @ts-expect-error so does its update
  await conversations.update(id, { subject: 'x' });
  // @ts-expect-error a message is found in its org
  await conversations.findMessage(id, id);
  // @ts-expect-error so is a thread's page of messages
  await conversations.thread(id, { includeInternal: false, limit: 10 });
  // @ts-expect-error and a turn is claimed in its org
  await conversations.claimTurn(id, 1000);
  // @ts-expect-error an org id string is not the scope of an attention-list item
  await conversations.findQueueItem(orgId, id);
  // @ts-expect-error an integration is found in its org
  await channels.findIntegration(orgId, id);
  // @ts-expect-error an outbox row is claimed for sending in its org
  await channels.claimOutbound(id, 1000);
  // @ts-expect-error and changed in it
  await channels.updateOutbound(id, { status: 'sent' });
  // @ts-expect-error a held row is locked in its org
  await channels.lockHeld(id);
  // @ts-expect-error the delivery states of messages are read in their org
  await channels.outboundStatuses([id]);
  // @ts-expect-error a conversation's channel thread is found in its org
  await channels.threadOfConversation(id);
  // @ts-expect-error a thread is bound in the scope's org, not in an orgId of its values
  await channels.insertThread({ orgId, channel: 'email', threadKey: 'k', conversationId: id });
  // @ts-expect-error an integration's bindings are read in its org
  await channels.bindingsOf(id);
  // @ts-expect-error an org's assignments are listed under its scope, not its id
  await assignments.listActive(orgId);
  // @ts-expect-error so is one of them changed
  await assignments.update(orgId, id, { isPrimary: true });
  // @ts-expect-error an assignment is made in the scope's org, not in an orgId of its values
  await assignments.insert({ orgId, specialistId: id, emailAlias: 'a@b.c' });
  // @ts-expect-error an org's members are read under its scope
  await users.membersOfOrg(orgId);
  // @ts-expect-error and a membership is removed under it
  await users.removeMembership(orgId, id);
  // @ts-expect-error a conversation is opened in the scope's org, not in an orgId of its values
  await conversations.insertConversation({ orgId, assignmentId: id, specialistId: id, channel: 'web', status: 'pending' });
  // @ts-expect-error an invoice is written in the scope's org
  await billing.insertInvoice({ orgId, period: '2026-11', currency: 'USD', totalCents: 0, status: 'open', issuedAt: new Date(0), dueOn: '2026-12-14' }, []);
  // @ts-expect-error and so is an org's billing account
  await billing.insertAccount({ orgId, provider: 'manual', providerCustomerId: 'c' });
  // @ts-expect-error an org's invoices are listed under its scope
  await billing.listInvoices(orgId, { limit: 10 });
}

export function literalsAreNotScopes(): void {
  // @ts-expect-error a plain `{ orgId }` literal is not an OrgScope
  const literal: OrgScope = { orgId };
  // @ts-expect-error nor is a cast-free object of the same shape from elsewhere
  void briefs.oldestFirst({ orgId: literal.orgId }, 5);
  // @ts-expect-error `{ orgId }` does not list an org's assignments
  void assignments.listActive({ orgId });
  // @ts-expect-error nor its members
  void users.membersOfOrg({ orgId });
  // @ts-expect-error nor counts its owners
  void users.countOwners({ orgId });
  // @ts-expect-error nor claims an outbox row
  void channels.claimOutbound({ orgId }, id, 1000);
}

export async function withScope(): Promise<void> {
  // The named constructors: the request pipeline, a job's own org, the greppable escape.
  const scopes: OrgScope[] = [memberScope(principal), requestScope(orgId, 'membership'), jobScope({ orgId }), unscopedOrg(orgId, 'type test')];
  for (const scope of scopes) {
    await briefs.list(scope, { limit: 10 });
    await conversations.lock(scope, id);
    await conversations.findMessage(scope, id, id);
    await conversations.thread(scope, id, { includeInternal: false, limit: 10 });
    await conversations.claimTurn(scope, id, 1000);
    await assignments.listActive(scope);
    await users.membersOfOrg(scope);
    await channels.claimOutbound(scope, id, 1000);
    await channels.threadOfConversation(scope, id);
    await channels.insertThread(scope, { channel: 'email', threadKey: 'k', conversationId: id });
    // The same values as the refused calls above, minus the orgId: only the scope was missing there.
    await conversations.insertConversation(scope, { assignmentId: id, specialistId: id, channel: 'web', status: 'pending' });
    await billing.insertInvoice(scope, { period: '2026-11', currency: 'USD', totalCents: 0, status: 'open', issuedAt: new Date(0), dueOn: '2026-12-14' }, []);
    await billing.insertAccount(scope, { provider: 'manual', providerCustomerId: 'c' });
    await billing.listInvoices(scope, { limit: 10 });
  }
}
