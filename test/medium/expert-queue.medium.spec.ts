import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueQuerySchema } from '../../src/contracts/conversations.js';
import { ConversationsService } from '../../src/modules/conversations/index.js';
import { ExpertQueueService } from '../../src/modules/conversations/expert-queue.service.js';
import { JsonText } from '../../src/platform/http/json-text.js';
import { startMedium, type Medium } from '../support/factories.js';

describe('the expert queue over the real services (medium)', () => {
  let m: Medium;
  beforeAll(async () => {
    m = await startMedium();
  });
  afterAll(async () => {
    await m?.close();
  });

  const queueOf = async (expert: { id: string }) => {
    const page = await m.get(ExpertQueueService).list(await m.principal(expert), QueueQuerySchema.parse({}));
    // The list's page comes as the JSON text the database wrote.
    return (page instanceof JsonText ? page.parse() : page).items;
  };

  it('lists an escalated conversation to the expert covering its org, and to no other expert', async () => {
    const org = await m.newOrg();
    await m.newSpecialistAssignment(org);
    const covering = await m.newGrant(org);
    const other = await m.newGrant(await m.newOrg());
    const conversation = await m.newConversation(org, { subject: 'Refund for order 42' });
    const client = await m.principal({ id: conversation.createdBy });

    await m.get(ConversationsService).escalate(client, conversation.id, 'The answer was wrong');

    expect(await queueOf({ id: covering.expertId })).toEqual([
      expect.objectContaining({ conversationId: conversation.id, orgId: org.id, orgName: org.legalName, subject: 'Refund for order 42', reason: 'escalation' }),
    ]);
    expect(await queueOf({ id: other.expertId })).toEqual([]);
    expect(await m.rows('queue_items', { conversation_id: conversation.id })).toHaveLength(1);
  });

  it("keeps one org's conversation from a member of another org (404, not 403)", async () => {
    const [a, b] = [await m.newOrg(), await m.newOrg()];
    await m.newSpecialistAssignment(a);
    const conversation = await m.newConversation(a);
    const outsider = await m.principal(await m.newMember(b));
    await expect(m.get(ConversationsService).thread(outsider, conversation.id, { limit: 20 })).rejects.toMatchObject({ code: 'not_found' });
  });
});
