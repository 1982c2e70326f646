import { Injectable } from '@nestjs/common';
import { ORG_ROLES } from '../../contracts/roles.js';
import type { DurableDomainEvents } from '../../platform/events/domain-events.js';
import { EventBus } from '../../platform/events/event-bus.js';
import { OnDurableEvent } from '../../platform/events/on-event.decorator.js';
import { jobScope } from '../../platform/tenancy/org-scope.js';
import { OrgsService } from '../orgs/index.js';
import { SpecialistsService } from '../specialists/index.js';
import { UsersService } from '../users/index.js';
import { ConversationsRepository } from './conversations.repository.js';
import './conversations.events.js';
import type { ConversationRow, MessageRow } from './conversations.tables.js';

/** The type of the client notification of an Expert's visible follow-up (shown as the Specialist's). */
export const SPECIALIST_REPLIED = 'conversation.specialist_replied';
const PREVIEW_CHARS = 160;

/**
 * Tells the client that their Specialist answered in a conversation, when an Expert writes a
 * visible follow-up as the Specialist (spec 1, 4.4). Recipients: the conversation's creator and
 * every user who wrote in it from the portal, each only while still a member of the org; a
 * channel thread with no portal participant notifies nobody (the reply went out through that
 * channel). The notification speaks of the Specialist and never names the Expert (spec 1).
 */
@Injectable()
export class SpecialistReplyNotifier {
  constructor(
    private readonly repo: ConversationsRepository,
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
    private readonly specialists: SpecialistsService,
    private readonly bus: EventBus,
  ) {}

  /**
   * From the job queue, atomic: the owed notices (one durable event per recipient) are written with
   * this job's completion, so a redelivered job tells no one twice and a crash loses none.
   */
  @OnDurableEvent('conversations.specialist_replied', { atomic: true })
  async notify({ orgId, conversationId, messageId }: DurableDomainEvents['conversations.specialist_replied']): Promise<void> {
    const scope = jobScope({ orgId });
    const [conversation, reply] = await Promise.all([this.repo.find(scope, conversationId), this.repo.findMessage(scope, conversationId, messageId)]);
    if (!conversation || !reply) return;
    const recipients = await this.recipients(conversation, reply);
    if (recipients.length === 0) return;
    const [specialists, orgs] = await Promise.all([this.specialists.byIds([conversation.specialistId]), this.orgs.summaries([conversation.orgId])]);
    const name = specialists.get(conversation.specialistId)?.name ?? 'Your Specialist';
    const text = reply.content.replace(/\s+/g, ' ').trim();
    const notice = {
      type: SPECIALIST_REPLIED,
      title: `${name} replied${conversation.subject ? ` in “${conversation.subject}”` : ''}`,
      message: text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text || `${name} sent you a new message.`,
      meta: { orgId: conversation.orgId, slug: orgs.get(conversation.orgId)?.slug, conversationId: conversation.id, messageId: reply.id, specialistId: conversation.specialistId },
    };
    for (const userId of recipients) await this.bus.emitDurable('notifications.owed', { userId, notice });
  }

  private async recipients(conversation: ConversationRow, reply: MessageRow): Promise<string[]> {
    // The event's own conversation names the org (a listener acts like a job on its payload).
    const scope = jobScope(conversation);
    const participants = new Set(await this.repo.clientSenders(scope, conversation.id));
    if (conversation.createdBy) participants.add(conversation.createdBy);
    participants.delete(reply.senderId ?? '');
    if (participants.size === 0) return [];
    const members = new Set(await this.users.memberIdsWithRoles(scope, ORG_ROLES));
    return [...participants].filter((id) => members.has(id));
  }
}
