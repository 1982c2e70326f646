import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMedium, type Medium } from '../support/factories.js';

describe('assignments and messages over the real services (medium)', () => {
  let m: Medium;
  beforeAll(async () => {
    // The orgs module's own configuration slice, read through Nest like any module's.
    m = await startMedium({ env: { WORKSPACE_DOMAIN: 'mail.medium.example.net' } });
  });
  afterAll(async () => {
    await m?.close();
  });

  it('gives an assignment its workspace alias on the configured domain, and keeps the assigned rate', async () => {
    const org = await m.newOrg({ slug: 'northwind' });
    const specialist = await m.newSpecialist({ name: 'Ada Lovelace' });
    const assignment = await m.newSpecialistAssignment(org, { specialist, monthlyRate: 1500 });
    expect(assignment).toMatchObject({ orgId: org.id, specialistId: specialist.id, isPrimary: true, monthlyRate: 1500, email_alias: 'ada.northwind@mail.medium.example.net' });
    const [row] = await m.rows<{ org_id: string; email_alias: string }>('org_specialist_assignments', { id: assignment.id });
    expect(row).toMatchObject({ org_id: org.id, email_alias: 'ada.northwind@mail.medium.example.net' });
  });

  it("answers a client's message with the Specialist's reply, both stored in the conversation", async () => {
    const org = await m.newOrg();
    await m.newSpecialistAssignment(org);
    const conversation = await m.newConversation(org);
    const sent = await m.newMessage(conversation, { content: 'Where is my invoice?' });
    expect(sent).toMatchObject({ content: 'Where is my invoice?', reply: expect.objectContaining({ role: 'specialist' }) });
    const stored = await m.rows<{ role: string }>('conversation_messages', { conversation_id: conversation.id });
    expect(stored.map((r) => r.role).sort()).toEqual(['client', 'specialist']);
  });
});
