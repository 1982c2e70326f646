import type { ConversationDto, MessageDelivery, MessageDto, QueueItemDto, QueueMatch } from '../../contracts/conversations.js';
import type { QueueItemPayload } from '../../contracts/realtime.js';
import type { ArtifactLinks } from './artifact-links.js';
import { splitResources } from './artifacts.blocks.js';
import type { ConversationRow, MessageRow, QueueItemRow } from './conversations.tables.js';

export type Viewer = 'staff' | 'client';

/** The marks `ts_headline` puts around a matched word (private-use characters: never typed). */
export const MATCH_START = '\uE000';
export const MATCH_END = '\uE001';

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
 * a thread the viewer may read. A channel reply's delivery state is for staff only.
 */
export function toMessageDto(row: MessageRow, viewer: Viewer, specialistId: string, links: ArtifactLinks, delivery?: MessageDelivery): MessageDto {
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
    ...(viewer === 'staff' && delivery ? { delivery } : {}),
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

export function toQueueItemDto(row: QueueItemRow, orgName: string, specialist: Pick<SpecialistCard, 'name'> | undefined): QueueItemDto {
  return {
    id: row.id,
    conversationId: row.conversationId,
    orgId: row.orgId,
    orgName,
    specialist: { id: row.specialistId, name: specialist?.name ?? '' },
    subject: row.subject,
    status: row.status,
    reason: row.reason,
    note: row.note,
    sla_deadline: iso(row.slaDeadline),
    deferred_until: iso(row.deferredUntil),
    assigned_expert_id: row.assignedExpertId,
    channel: row.channel,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A `ts_headline` excerpt as parts: the words between MATCH_START and MATCH_END are the matches. */
export function excerptParts(headline: string): QueueMatch['excerpt'] {
  const parts: QueueMatch['excerpt'] = [];
  for (const [i, chunk] of headline.split(MATCH_START).entries()) {
    const [hit, rest] = i === 0 ? [null, chunk] : splitOnce(chunk, MATCH_END);
    if (hit) parts.push({ text: hit, match: true });
    if (rest) parts.push({ text: rest.replaceAll(MATCH_END, ''), match: false });
  }
  return parts;
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + separator.length)];
}
