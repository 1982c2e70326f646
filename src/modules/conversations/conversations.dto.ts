import type { ConversationDto, MessageDto, QueueItemDto } from '../../contracts/conversations.js';
import type { QueueItemPayload } from '../../contracts/realtime.js';
import type { ArtifactLinks } from './artifact-links.js';
import { splitResources } from './artifacts.blocks.js';
import type { ConversationRow, MessageRow, QueueItemRow } from './conversations.tables.js';

export type Viewer = 'staff' | 'client';

export interface SpecialistCard {
  id: string;
  name: string;
  avatarUrl: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The message as a viewer sees it: a client never learns an Expert exists, so an Expert's
 * follow-up shows as the Specialist's (API-MAP.md "Conversations"). A client message's resource
 * blocks become its attachments, each with a signed download link: callers map only messages of
 * a thread the viewer may read.
 */
export function toMessageDto(row: MessageRow, viewer: Viewer, specialistId: string, links: ArtifactLinks): MessageDto {
  const asSpecialist = viewer === 'client' && row.role === 'expert';
  const { text, resources } = row.role === 'client' ? splitResources(row.content) : { text: row.content, resources: [] };
  return {
    id: row.id,
    conversationId: row.conversationId,
    role: asSpecialist ? 'specialist' : row.role,
    sender_id: asSpecialist ? specialistId : row.senderId,
    content: text,
    is_internal: row.isInternal,
    createdAt: row.createdAt.toISOString(),
    correctedAt: iso(row.correctedAt),
    attachments: resources.map((r) => ({ id: r.artifactId, name: r.name, contentType: r.mimeType, size: r.size, url: links.url(row.orgId, row.conversationId, r.artifactId) })),
  };
}

export function toConversationDto(row: ConversationRow, specialist: SpecialistCard | undefined, viewer: Viewer): ConversationDto {
  return {
    id: row.id,
    orgId: row.orgId,
    assignmentId: row.assignmentId,
    specialist: specialist ?? { id: row.specialistId, name: '', avatarUrl: null },
    subject: row.subject,
    status: row.status,
    channel: row.channel,
    resolvedAt: iso(row.resolvedAt),
    snoozeUntil: iso(row.snoozeUntil),
    // The Expert on the thread is staff-only information.
    assigned_expert_id: viewer === 'client' ? null : row.assignedExpertId,
    auto_responded: row.autoResponded,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    lastMessageAt: row.lastMessageAt.toISOString(),
  };
}

export function toQueueItemPayload(row: QueueItemRow): QueueItemPayload {
  return {
    id: row.id,
    conversationId: row.conversationId,
    orgId: row.orgId,
    status: row.status,
    reason: row.reason,
    sla_deadline: iso(row.slaDeadline),
    deferred_until: iso(row.deferredUntil),
    assigned_expert_id: row.assignedExpertId,
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toQueueItemDto(row: QueueItemRow, conversation: ConversationRow | undefined, orgName: string, specialist: SpecialistCard | undefined): QueueItemDto {
  return {
    id: row.id,
    conversationId: row.conversationId,
    orgId: row.orgId,
    orgName,
    specialist: { id: row.specialistId, name: specialist?.name ?? '' },
    subject: conversation?.subject ?? null,
    status: row.status,
    reason: row.reason,
    note: row.note,
    sla_deadline: iso(row.slaDeadline),
    deferred_until: iso(row.deferredUntil),
    assigned_expert_id: row.assignedExpertId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
