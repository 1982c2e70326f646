import { Inject, Injectable } from '@nestjs/common';
import { CHANNEL_NAMES, type ChannelName, type CreateIntegrationInput, type IntegrationDto, type UpdateIntegrationInput } from '../../contracts/channels.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { Clock } from '../../platform/clock/clock.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { channelsConfig, type ChannelsConfig } from './channels.config.js';
import { SecretBox, sha256Hex } from '../../platform/crypto/crypto.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { jobScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { OrgsService } from '../orgs/index.js';
import { containsVerificationCode, newVerificationCode } from './binding-verification.js';
import { ChannelsRepository } from './channels.repository.js';
import type { BindingKind, ChannelBindingRow, IntegrationRow } from './channels.tables.js';

/** The webhook path of each channel, under the API base (spec 4.8). */
export const WEBHOOK_PATHS: Record<ChannelName, string[]> = {
  'chat-a': ['/api/channels/chat-a/events'],
  email: ['/api/channels/email/inbound', '/api/channels/email/forward/mime'],
  'messaging-a': ['/api/channels/messaging-a/inbound'],
  'messaging-b': ['/api/channels/messaging-b/webhook'],
  'enterprise-chat': ['/api/channels/enterprise-chat/webhook', '/api/channels/enterprise-chat/messages'],
};

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/** One integration's claim on an inbound source (a workspace, tenant, sender number or secret). */
export interface SourceClaim {
  binding: ChannelBindingRow;
  integration: IntegrationRow;
}

/**
 * Who an inbound source belongs to: the enabled integration that verified it, else the enabled
 * integrations still waiting for proof; undefined when nobody (or a disabled owner) holds it.
 */
export type SourceResolution = { verified: SourceClaim } | { pending: SourceClaim[] } | undefined;

const key = (b: { kind: BindingKind; value: string }) => `${b.kind}:${b.value}`;

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** messaging-a: the numbers of the org's own account (`config.numbers`); none when it uses the platform's pool. */
export function ownNumbers(config: Record<string, unknown>): string[] {
  return stringList(config.numbers);
}

/**
 * Org integrations (spec 4.6, 5.7): one per channel, secrets sealed at rest and never returned,
 * bindings that route inbound calls to exactly one org once that org proved control of the source
 * (API-MAP.md "Channel bindings and vendor traffic"): a message through the channel carrying the
 * integration's code, or an account manager's verification.
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
    private readonly clock: Clock,
    @Inject(channelsConfig.token) private readonly channels: ChannelsConfig,
  ) {}

  async list(scope: OrgScope): Promise<IntegrationDto[]> {
    await this.orgs.get(scope.orgId);
    const rows = await this.repo.listIntegrations(scope);
    const bindings = await this.repo.bindingsOf(
      scope,
      rows.map((r) => r.id),
    );
    return rows.map((r) => this.toDto(r, bindings));
  }

  async get(scope: OrgScope, id: string): Promise<IntegrationDto> {
    return this.dtoOf(scope, await this.require(scope, id));
  }

  async create(actor: Principal, scope: OrgScope, input: CreateIntegrationInput): Promise<IntegrationDto> {
    const { orgId } = scope;
    await this.orgs.get(orgId);
    if (input.channel === 'messaging-a') this.checkOwnAccount(input.config ?? {}, input.secrets ?? {});
    const row = await this.write(async () => {
      if (await this.repo.findIntegrationByChannel(scope, input.channel)) throw AppError.conflict(`This org already has a ${input.channel} integration`);
      const created = await this.repo.insertIntegration(scope, {
        channel: input.channel,
        externalId: input.externalId ?? null,
        config: input.config ?? {},
        ...this.sealed(input.secrets ?? {}),
        enabled: input.enabled ?? true,
        verificationStatus: 'pending',
        verificationCode: newVerificationCode(),
        createdBy: actor.userId,
      });
      return this.bind(scope, created, input.secrets ?? {});
    });
    await this.audit.record({
      action: 'integration.created',
      userId: actor.userId,
      resourceId: row.id,
      orgId,
      impersonatorId: actor.impersonatorId,
      meta: { channel: row.channel, externalId: row.externalId, secretNames: Object.keys(input.secrets ?? {}) },
    });
    return this.dtoOf(scope, row);
  }

  async update(actor: Principal, scope: OrgScope, id: string, input: UpdateIntegrationInput): Promise<IntegrationDto> {
    const { orgId } = scope;
    const row = await this.write(async () => {
      const current = await this.require(scope, id);
      // Secrets merge: a name given replaces that secret, the others stay.
      const secrets = input.secrets ? { ...this.secretsOf(current), ...input.secrets } : undefined;
      if (current.channel === 'messaging-a') this.checkOwnAccount(input.config ?? current.config, secrets ?? this.secretsOf(current));
      const updated = (await this.repo.updateIntegration(scope, id, {
        ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
        ...(input.config !== undefined ? { config: input.config } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(secrets ? this.sealed(secrets) : {}),
      }))!;
      return this.bind(scope, updated, secrets ?? this.secretsOf(updated));
    });
    await this.audit.record({
      action: 'integration.updated',
      userId: actor.userId,
      resourceId: id,
      orgId,
      impersonatorId: actor.impersonatorId,
      meta: { channel: row.channel, fields: Object.keys(input), secretNames: Object.keys(input.secrets ?? {}), verificationStatus: row.verificationStatus },
    });
    return this.dtoOf(scope, row);
  }

  /**
   * Staff verification (account_manager or superadmin; the controller checks the role): every
   * source of the integration becomes this org's. 409 when one is verified for another org.
   */
  async verify(actor: Principal, scope: OrgScope, id: string): Promise<void> {
    const { orgId } = scope;
    let row: IntegrationRow;
    try {
      row = await this.dbService.transaction(async () => {
        const current = await this.require(scope, id);
        await this.repo.verifyBindings(scope, current.id);
        return this.markVerified(scope, current);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw AppError.conflict('This workspace, tenant, number or secret is already verified for another organization');
      throw err;
    }
    await this.audit.record({
      action: 'integration.verified',
      userId: actor.userId,
      resourceId: id,
      orgId,
      impersonatorId: actor.impersonatorId,
      meta: { channel: row.channel, externalId: row.externalId, method: 'staff' },
    });
  }

  /** Who holds an inbound source (spec 4.8 rule 5: one indexed lookup of the binding). */
  async resolveSource(channel: ChannelName, kind: BindingKind, value: string): Promise<SourceResolution> {
    const claims = await this.repo.unscopedBindingsOfValue(channel, kind, value);
    const verified = claims.find((c) => c.binding.verified);
    if (verified) return verified.integration.enabled ? { verified } : undefined;
    const pending = claims.filter((c) => c.integration.enabled);
    return pending.length > 0 ? { pending } : undefined;
  }

  /**
   * Proof through the channel: a message from a pending claim's source that carries its code
   * verifies that source (the integration is verified once all its sources are). False when the
   * text has no code, or when another org verified the source first (the code path refuses too).
   */
  async verifyByMessage(claim: SourceClaim, text: string): Promise<boolean> {
    const { binding, integration } = claim;
    if (binding.verified || !containsVerificationCode(text, integration.verificationCode)) return false;
    let row: IntegrationRow;
    try {
      // The org of the integration the source's binding names (a row of unscopedBindingsOfValue).
      const scope = jobScope(integration);
      row = await this.dbService.transaction(async () => {
        await this.repo.verifyBindings(scope, integration.id, binding);
        const remaining = (await this.repo.bindingsOf(scope, integration.id)).filter((b) => !b.verified);
        return remaining.length === 0 ? this.markVerified(scope, integration) : integration;
      });
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
    await this.audit.record({
      action: 'integration.verified',
      resourceId: integration.id,
      orgId: integration.orgId,
      meta: { channel: integration.channel, source: binding.kind === 'secret_sha256' ? 'webhook secret' : binding.value, method: 'inbound_code', verificationStatus: row.verificationStatus },
    });
    return true;
  }

  async remove(actor: Principal, scope: OrgScope, id: string): Promise<void> {
    const { orgId } = scope;
    const row = await this.repo.deleteIntegration(scope, id);
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
      // Only this org's own second integration of a channel (two at once) gets here: binding
      // values are never unique while pending, so the answer reveals nothing about other orgs.
      if (isUniqueViolation(err)) throw AppError.conflict('This org already has an integration of this channel');
      throw err;
    }
  }

  private async markVerified(scope: OrgScope, row: IntegrationRow): Promise<IntegrationRow> {
    if (row.verificationStatus === 'verified') return row;
    return (await this.repo.updateIntegration(scope, row.id, { verificationStatus: 'verified', verificationCode: null, verifiedAt: this.clock.now() }))!;
  }

  private sealed(secrets: Record<string, string>) {
    return Object.keys(secrets).length === 0 ? { secretsSealed: null, secretsKeyId: null } : { secretsSealed: this.box.seal(JSON.stringify(secrets)), secretsKeyId: this.box.keyId };
  }

  /**
   * The explicit bindings of spec 4.8 rule 5, written with the integration (kept while it is
   * disabled, so that it keeps its verified sources). A source stays verified only while its value
   * is unchanged; a new one makes the integration pending again, with a fresh code.
   */
  private async bind(scope: OrgScope, row: IntegrationRow, secrets: Record<string, string>): Promise<IntegrationRow> {
    const wanted: Array<{ kind: BindingKind; value: string }> = [];
    if (row.externalId && row.channel === 'chat-a') wanted.push({ kind: 'workspace', value: row.externalId });
    if (row.externalId && row.channel === 'enterprise-chat') wanted.push({ kind: 'tenant', value: row.externalId });
    if (row.channel === 'messaging-a') {
      // The org's own account routes by its account SID (its whitelist then only filters senders);
      // the platform's pool routes by each whitelisted sender.
      if (ownNumbers(row.config).length > 0 && secrets.accountSid) wanted.push({ kind: 'account_sid', value: secrets.accountSid });
      else for (const number of new Set(stringList(row.config.whitelist))) wanted.push({ kind: 'sender_number', value: number });
    }
    if (row.channel === 'messaging-b' && secrets.webhookSecret) wanted.push({ kind: 'secret_sha256', value: sha256Hex(secrets.webhookSecret) });
    const verifiedBefore = new Set((await this.repo.bindingsOf(scope, row.id)).filter((b) => b.verified).map(key));
    const bindings = wanted.map((b) => ({ ...b, verified: verifiedBefore.has(key(b)) }));
    await this.repo.replaceBindings(scope, row.id, row.channel, bindings);
    if (bindings.length === 0) return row;
    if (bindings.every((b) => b.verified)) return this.markVerified(scope, row);
    if (row.verificationStatus === 'pending') return row;
    return (await this.repo.updateIntegration(scope, row.id, { verificationStatus: 'pending', verificationCode: newVerificationCode(), verifiedAt: null }))!;
  }

  /**
   * messaging-a on the org's own account: its numbers need that account's SID and auth token
   * (the token verifies the account's webhooks and sends the replies), and a number of the
   * platform's pool is never an org's own.
   */
  private checkOwnAccount(config: Record<string, unknown>, secrets: Record<string, string>): void {
    const numbers = ownNumbers(config);
    if (numbers.length === 0) return;
    const missing = (['accountSid', 'authToken'] as const).filter((name) => !secrets[name]);
    if (missing.length > 0) {
      throw new AppError('validation_failed', 'Invalid body', {
        details: missing.map((name) => ({ field: `secrets.${name}`, message: "Required with config.numbers: the own account's credentials" })),
      });
    }
    const pooled = numbers.filter((n) => this.channels.inbound.messagingANumberPool.includes(n));
    if (pooled.length > 0) throw AppError.badRequest(`${pooled.join(', ')} belongs to the service's number pool, not to an own account`);
  }

  private async require(scope: OrgScope, id: string): Promise<IntegrationRow> {
    const row = await this.repo.findIntegration(scope, id);
    if (!row) throw AppError.notFound('Integration');
    return row;
  }

  private async dtoOf(scope: OrgScope, row: IntegrationRow): Promise<IntegrationDto> {
    return this.toDto(row, await this.repo.bindingsOf(scope, row.id));
  }

  private toDto(row: IntegrationRow, bindings: ChannelBindingRow[]): IntegrationDto {
    const pending = row.verificationStatus === 'pending';
    return {
      id: row.id,
      orgId: row.orgId,
      channel: row.channel,
      externalId: row.externalId,
      config: row.config,
      secretNames: Object.keys(this.secretsOf(row)).sort(),
      enabled: row.enabled,
      verificationStatus: row.verificationStatus,
      verificationCode: pending ? row.verificationCode : null,
      // A messaging-b secret is a secret: its binding is never named.
      pendingSources: bindings.filter((b) => b.integrationId === row.id && !b.verified && b.kind !== 'secret_sha256').map((b) => b.value),
      verifiedAt: row.verifiedAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }
}
