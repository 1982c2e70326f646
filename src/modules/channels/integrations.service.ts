import { Inject, Injectable } from '@nestjs/common';
import { CHANNEL_NAMES, type ChannelName, type CreateIntegrationInput, type IntegrationDto, type UpdateIntegrationInput } from '../../contracts/channels.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { SecretBox, sha256Hex } from '../../platform/crypto/crypto.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { OrgsService } from '../orgs/index.js';
import { ChannelsRepository } from './channels.repository.js';
import type { BindingKind, IntegrationRow } from './channels.tables.js';

/** The webhook path of each channel, under the API base (spec 4.8). */
export const WEBHOOK_PATHS: Record<ChannelName, string[]> = {
  'chat-a': ['/api/channels/chat-a/events'],
  email: ['/api/channels/email/inbound'],
  'messaging-a': ['/api/channels/messaging-a/inbound'],
  'messaging-b': ['/api/channels/messaging-b/webhook'],
  'enterprise-chat': ['/api/channels/enterprise-chat/webhook', '/api/channels/enterprise-chat/messages'],
};

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/**
 * Org integrations (spec 4.6, 5.7): one per channel, secrets sealed at rest and never returned,
 * bindings that route inbound calls to exactly one org.
 */
@Injectable()
export class IntegrationsService {
  constructor(
    private readonly repo: ChannelsRepository,
    private readonly box: SecretBox,
    private readonly orgs: OrgsService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(orgId: string): Promise<IntegrationDto[]> {
    await this.orgs.get(orgId);
    return (await this.repo.listIntegrations(orgId)).map((r) => this.toDto(r));
  }

  async get(orgId: string, id: string): Promise<IntegrationDto> {
    return this.toDto(await this.require(orgId, id));
  }

  async create(actor: Principal, orgId: string, input: CreateIntegrationInput): Promise<IntegrationDto> {
    await this.orgs.get(orgId);
    const row = await this.write(async () => {
      if (await this.repo.findIntegrationByChannel(orgId, input.channel)) throw AppError.conflict(`This org already has a ${input.channel} integration`);
      const created = await this.repo.insertIntegration({
        orgId,
        channel: input.channel,
        externalId: input.externalId ?? null,
        config: input.config ?? {},
        ...this.sealed(input.secrets ?? {}),
        enabled: input.enabled ?? true,
        createdBy: actor.userId,
      });
      await this.bind(created, input.secrets ?? {});
      return created;
    });
    await this.audit.record({ action: 'integration.created', userId: actor.userId, resourceId: row.id, orgId, impersonatorId: actor.impersonatorId, meta: { channel: row.channel, externalId: row.externalId, secretNames: Object.keys(input.secrets ?? {}) } });
    return this.toDto(row);
  }

  async update(actor: Principal, orgId: string, id: string, input: UpdateIntegrationInput): Promise<IntegrationDto> {
    const row = await this.write(async () => {
      const current = await this.require(orgId, id);
      // Secrets merge: a name given replaces that secret, the others stay.
      const secrets = input.secrets ? { ...this.secretsOf(current), ...input.secrets } : undefined;
      const updated = (await this.repo.updateIntegration(orgId, id, {
        ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
        ...(input.config !== undefined ? { config: input.config } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(secrets ? this.sealed(secrets) : {}),
      }))!;
      await this.bind(updated, secrets ?? this.secretsOf(updated));
      return updated;
    });
    await this.audit.record({ action: 'integration.updated', userId: actor.userId, resourceId: id, orgId, impersonatorId: actor.impersonatorId, meta: { channel: row.channel, fields: Object.keys(input), secretNames: Object.keys(input.secrets ?? {}) } });
    return this.toDto(row);
  }

  async remove(actor: Principal, orgId: string, id: string): Promise<void> {
    const row = await this.repo.deleteIntegration(orgId, id);
    if (!row) throw AppError.notFound('Integration');
    await this.audit.record({ action: 'integration.removed', userId: actor.userId, resourceId: id, orgId, impersonatorId: actor.impersonatorId, meta: { channel: row.channel } });
  }

  /** The opened secrets of an integration (for verification and sending; never returned or logged). */
  secretsOf(row: IntegrationRow): Record<string, string> {
    if (!row.secretsSealed) return {};
    return JSON.parse(this.box.open(row.secretsSealed)) as Record<string, string>;
  }

  webhookUrls(): Record<ChannelName, string[]> {
    const origin = new URL(this.config.publicUrl).origin;
    return Object.fromEntries(CHANNEL_NAMES.map((c) => [c, WEBHOOK_PATHS[c].map((p) => origin + p)])) as Record<ChannelName, string[]>;
  }

  private async write<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.dbService.transaction(fn);
    } catch (err) {
      if (isUniqueViolation(err)) throw AppError.conflict('This workspace, tenant, number or secret is already bound to an integration');
      throw err;
    }
  }

  private sealed(secrets: Record<string, string>) {
    return Object.keys(secrets).length === 0 ? { secretsSealed: null, secretsKeyId: null } : { secretsSealed: this.box.seal(JSON.stringify(secrets)), secretsKeyId: this.box.keyId };
  }

  /** The explicit bindings of spec 4.8 rule 5, written with the integration. */
  private async bind(row: IntegrationRow, secrets: Record<string, string>): Promise<void> {
    const bindings: Array<{ kind: BindingKind; value: string }> = [];
    if (row.externalId && row.channel === 'chat-a') bindings.push({ kind: 'workspace', value: row.externalId });
    if (row.externalId && row.channel === 'enterprise-chat') bindings.push({ kind: 'tenant', value: row.externalId });
    if (row.channel === 'messaging-a') {
      const whitelist = Array.isArray(row.config.whitelist) ? (row.config.whitelist as string[]) : [];
      for (const number of new Set(whitelist)) bindings.push({ kind: 'sender_number', value: number });
    }
    if (row.channel === 'messaging-b' && secrets.webhookSecret) bindings.push({ kind: 'secret_sha256', value: sha256Hex(secrets.webhookSecret) });
    await this.repo.replaceBindings(row.id, row.orgId, row.channel, row.enabled ? bindings : []);
  }

  private async require(orgId: string, id: string): Promise<IntegrationRow> {
    const row = await this.repo.findIntegration(orgId, id);
    if (!row) throw AppError.notFound('Integration');
    return row;
  }

  private toDto(row: IntegrationRow): IntegrationDto {
    return {
      id: row.id,
      orgId: row.orgId,
      channel: row.channel,
      externalId: row.externalId,
      config: row.config,
      secretNames: Object.keys(this.secretsOf(row)).sort(),
      enabled: row.enabled,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }
}
