import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import type { AdminUser, AdminUserDetail, UpdateUserInput } from '../../contracts/admin.js';
import type { PlatformRole, UserStatus } from '../../contracts/roles.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import type { Principal } from '../../platform/auth/principal.js';
import { systemNow } from '../../platform/clock/clock.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { decodeCursor, pageOf } from '../../platform/http/pagination.js';
import { rateLimitError } from '../../platform/rate-limit/rate-limit.service.js';
import { PasswordResetService } from '../auth/index.js';
import { OrgsService } from '../orgs/index.js';
import { UsersService, type UserRow } from '../users/index.js';
import { RESET_LIMIT, RESET_WINDOW_MS, auditDiff, changedFields, editRefusal, removalRefusal, resetLimit, resetRefusal, type RequestedChanges } from './admin-users.rules.js';
import { refused } from './admin.errors.js';
import { AuditLogService } from './audit-log.service.js';

/** Edits that can change who is a SuperAdmin take turns, so two of them never remove the last one together. */
const SUPERADMIN_SET_LOCK = 7_410_223;

export const ADMIN_ACTIONS = {
  updated: 'admin.user.updated',
  roleUpdated: 'admin.user.role_updated',
  passwordSet: 'admin.user.password_set',
  resetInitiated: 'admin.user.password_reset_initiated',
  removed: 'admin.user.removed',
} as const;

export function toAdminUser(row: UserRow): AdminUser {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    platformRole: row.platformRole,
    status: row.status,
    totpEnabled: row.totpEnabled,
    lastLoginAt: row.lastLoginAt?.toISOString() ?? null,
    passwordChangedAt: row.passwordChangedAt.toISOString(),
    removedAt: row.removedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** SuperAdmin user administration (spec 4.7): the rules of spec 3.5 and 7.2, audited as spec 6.3 says. */
@Injectable()
export class AdminUsersService {
  constructor(
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
    private readonly passwordReset: PasswordResetService,
    private readonly audit: AuditService,
    private readonly log: AuditLogService,
    private readonly dbService: DbService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(q: { role?: PlatformRole; status?: UserStatus; q?: string; limit: number; cursor?: string }) {
    const rows = await this.users.search({ role: q.role, status: q.status, q: q.q || undefined }, { limit: q.limit, after: decodeCursor(q.cursor) });
    return pageOf(rows, q.limit, (r) => ({ at: r.createdAt, id: r.id }), toAdminUser);
  }

  async detail(id: string): Promise<AdminUserDetail> {
    return this.toDetail(await this.require(id));
  }

  /** Actions the user performed (spec 6.3), including those taken while impersonating someone. */
  async activity(id: string, page: { limit: number; cursor?: string }) {
    await this.require(id);
    return this.log.page({ involving: id }, page);
  }

  update(actor: Principal, id: string, input: UpdateUserInput): Promise<AdminUserDetail> {
    return this.edit(actor, id, input, ADMIN_ACTIONS.updated);
  }

  setRole(actor: Principal, id: string, platformRole: PlatformRole): Promise<AdminUserDetail> {
    return this.edit(actor, id, { platformRole }, ADMIN_ACTIONS.roleUpdated);
  }

  /** A new password chosen by the SuperAdmin; the target's sessions end. */
  async setPassword(actor: Principal, id: string, password: string): Promise<void> {
    const target = await this.requireLive(id);
    await this.users.setPassword(id, password);
    await this.record(actor, ADMIN_ACTIONS.passwordSet, id, {
      changes: { passwordChangedAt: { from: target.passwordChangedAt.toISOString(), to: 'revoked' } },
      sessionsRevoked: true,
    });
  }

  /** Mails the target a reset code the actor never sees; at most 5 per actor per hour (spec 8). */
  async sendPasswordReset(actor: Principal, id: string): Promise<void> {
    const target = await this.requireLive(id);
    const refusal = resetRefusal(target);
    if (refusal) throw refused(refusal);
    const now = systemNow();
    const window = await this.audit.unscopedTally({ actorId: actor.userId, action: ADMIN_ACTIONS.resetInitiated, since: new Date(now.getTime() - RESET_WINDOW_MS) });
    const limit = resetLimit(window, now);
    if (!limit.allowed) {
      throw rateLimitError({ allowed: false, limit: RESET_LIMIT, remaining: 0, resetAtMs: limit.resetAtMs }, `At most ${RESET_LIMIT} password resets per hour`);
    }
    await this.passwordReset.send(target);
    // Written before the answer: the next initiation counts it.
    await this.record(actor, ADMIN_ACTIONS.resetInitiated, id, {});
  }

  /** Anonymises by default; `hard` deletes the row and is refused in production (spec 4.7, 7.2). */
  async remove(actor: Principal, id: string, hard: boolean): Promise<void> {
    if (hard && this.config.isProduction) throw AppError.forbidden('Hard delete is not allowed in production');
    await this.dbService.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${SUPERADMIN_SET_LOCK})`);
      const target = hard ? await this.require(id) : await this.requireLive(id);
      const refusal = removalRefusal({ actorId: actor.userId, target, hard, ...(await this.otherSuperadmins(target)) });
      if (refusal) throw refused(refusal);
      const soleOwned = await this.users.orgsSolelyOwnedBy(id);
      if (soleOwned.length > 0) {
        const names = [...(await this.orgs.summaries(soleOwned)).values()].map((o) => o.legalName).join(', ');
        throw AppError.conflict(`This user is the only owner of ${names}: transfer the ownership first`);
      }
      if (hard) await this.users.hardDelete(id);
      else await this.users.anonymise(id);
    });
    await this.record(actor, ADMIN_ACTIONS.removed, id, { mode: hard ? 'hard' : 'anonymised' });
  }

  private async edit(actor: Principal, id: string, input: RequestedChanges, action: string): Promise<AdminUserDetail> {
    const outcome = await this.dbService.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${SUPERADMIN_SET_LOCK})`);
      const target = await this.requireLive(id);
      const changes = changedFields(target, input);
      if (Object.keys(changes).length === 0) return { row: target };
      const refusal = editRefusal({ actorId: actor.userId, target, changes, ...(await this.otherSuperadmins(target)) });
      if (refusal) throw refused(refusal);
      const diff = auditDiff(target, changes);
      const row = await this.users.applyChanges(id, changes as Parameters<UsersService['applyChanges']>[1], { revokeSessions: diff.sessionsRevoked });
      return { row, diff };
    });
    if (outcome.diff) await this.record(actor, action, id, outcome.diff);
    return this.toDetail(outcome.row);
  }

  private async otherSuperadmins(target: UserRow): Promise<{ otherSuperadmins: number; otherActiveSuperadmins: number }> {
    if (target.platformRole !== 'superadmin') return { otherSuperadmins: 0, otherActiveSuperadmins: 0 };
    const [all, active] = await Promise.all([this.users.countSuperadmins({ excludeId: target.id }), this.users.countSuperadmins({ excludeId: target.id, activeOnly: true })]);
    return { otherSuperadmins: all, otherActiveSuperadmins: active };
  }

  /** The actor as the row's userId, the edited user as its resourceId (spec 6.3). */
  private record(actor: Principal, action: string, targetId: string, meta: Record<string, unknown>): Promise<void> {
    return this.audit.record({ action, userId: actor.userId, resourceId: targetId, impersonatorId: actor.impersonatorId, meta: { actorId: actor.userId, targetUserId: targetId, ...meta } });
  }

  private async require(id: string): Promise<UserRow> {
    const row = await this.users.findById(id);
    if (!row) throw AppError.notFound('User');
    return row;
  }

  /** A removed (anonymised) user is history: nothing more to edit. */
  private async requireLive(id: string): Promise<UserRow> {
    const row = await this.require(id);
    if (row.removedAt) throw AppError.conflict('This user was removed');
    return row;
  }

  private async toDetail(row: UserRow): Promise<AdminUserDetail> {
    const memberships = await this.users.memberships(row.id);
    const orgs = await this.orgs.summaries(memberships.map((m) => m.orgId));
    return {
      ...toAdminUser(row),
      orgMemberships: memberships.map((m) => ({ orgId: m.orgId, orgRole: m.orgRole, orgSlug: orgs.get(m.orgId)?.slug ?? null, orgName: orgs.get(m.orgId)?.legalName ?? null })),
    };
  }
}
