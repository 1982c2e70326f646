import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../platform/errors/app-error.js';
import { jobScope, unscopedOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { securityEvent } from '../../platform/observability/security-log.js';
import type { HistoryMessage, TurnAttachment } from '../agent/index.js';
import { ArtifactLinks } from './artifact-links.js';
import { resourceBlock, splitResources } from './artifacts.blocks.js';
import { ArtifactsRepository } from './artifacts.repository.js';
import { ARTIFACT_STORAGE, type ArtifactStorage } from './artifacts.storage.js';
import type { HistoryEntry } from './conversations.repository.js';
import type { ArtifactRow, ConversationRow } from './conversations.tables.js';

/**
 * A conversation's artifacts (spec 4.8 rule 4): inbound attachments stored once, in the artifacts
 * storage with a row naming them, referenced from the message by a resource block. The channels
 * worker stores them; the turn reads their bytes for the model; readers of the thread download
 * them through signed links.
 */
@Injectable()
export class ArtifactsService {
  constructor(
    private readonly repo: ArtifactsRepository,
    @Inject(ARTIFACT_STORAGE) private readonly storage: ArtifactStorage,
    private readonly links: ArtifactLinks,
  ) {}

  /**
   * Keeps a file with its conversation; the resource block that stands for it in the message's
   * text. A caller-given `id` (derived from the message and the file's place in it) keeps the file
   * once however many times it is stored: a second store of that id adds nothing.
   */
  async store(scope: OrgScope, input: { id?: string; conversationId: string; name: string; contentType: string; data: Buffer }): Promise<string> {
    const id = input.id ?? randomUUID();
    const storageKey = `${scope.orgId}/${input.conversationId}/${id}`;
    await this.storage.put(storageKey, input.data);
    await this.repo.insertOnce(scope, { id, conversationId: input.conversationId, name: input.name, contentType: input.contentType, size: input.data.length, storageKey });
    return resourceBlock({ artifactId: id, name: input.name, mimeType: input.contentType, size: input.data.length });
  }

  /**
   * A turn's history: each message's own text, and for a client message the files its blocks name,
   * this conversation's only (a block naming anything else reads as a file no longer available).
   * Nothing is read yet: the agent reads what it sends.
   */
  async history(conversation: Pick<ConversationRow, 'id' | 'orgId'>, rows: HistoryEntry[]): Promise<HistoryMessage[]> {
    const split = rows.map((m) => ({ row: m, ...(m.role === 'client' ? splitResources(m.content) : { text: m.content, resources: [] }) }));
    const ids = [...new Set(split.flatMap((m) => m.resources.map((r) => r.artifactId)))];
    const found = new Map((await this.repo.findMany(jobScope(conversation), conversation.id, ids)).map((a) => [a.id, a]));
    return split.map(({ row, text, resources }) => {
      if (row.role !== 'client') return { role: 'assistant' as const, content: text };
      if (resources.length === 0) return { role: 'user' as const, content: text };
      const attachments = resources.map((ref): TurnAttachment => {
        const artifact = found.get(ref.artifactId);
        if (!artifact) return { name: ref.name, mediaType: ref.mimeType, size: ref.size };
        return { name: artifact.name, mediaType: artifact.contentType, size: artifact.size, read: (maxBytes?: number) => this.storage.get(artifact.storageKey, maxBytes) };
      });
      return { role: 'user' as const, content: text, attachments };
    });
  }

  /**
   * The artifact a download link names, with its bytes: only for a link we signed for this org,
   * conversation and artifact, within its lifetime (403 otherwise); 404 when no such artifact.
   */
  async download(orgId: string, conversationId: string, artifactId: string, link: { expires?: string; sig?: string }): Promise<{ artifact: ArtifactRow; data: Buffer }> {
    const check = this.links.check(orgId, conversationId, artifactId, link.expires, link.sig);
    if (check !== 'ok') {
      securityEvent('artifact_link_refused', { reason: check, artifactId });
      throw AppError.forbidden(check === 'expired' ? 'This download link has expired: open the conversation again for a new one' : 'This download link is not valid');
    }
    const artifact = await this.repo.find(unscopedOrg(orgId, 'the org a download link we signed names'), conversationId, artifactId);
    if (!artifact) throw AppError.notFound('Attachment');
    const data = await this.storage.get(artifact.storageKey).catch(() => undefined);
    if (!data) throw AppError.notFound('Attachment');
    return { artifact, data };
  }
}
