import { Injectable } from '@nestjs/common';
import type { ImpersonationSession } from '../../contracts/admin.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { ImpersonationClaims } from '../../platform/auth/request-auth.js';
import { TokenService } from '../../platform/auth/token.service.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { decodeCursor, pageOf } from '../../platform/http/pagination.js';
import { UsersService } from '../users/index.js';
import { impersonationRefusal } from './admin-users.rules.js';
import { refused } from './admin.errors.js';
import type { ImpersonationSessionRow } from './admin.tables.js';
import { ImpersonationRepository } from './impersonation.repository.js';

/** An impersonation session (and its token) lasts at most an hour. */
export const IMPERSONATION_TTL_S = 60 * 60;

/**
 * Impersonation (spec 5.8): a SuperAdmin opens a session as a non-SuperAdmin with a recorded
 * reason; the token names the impersonator and the session, and stops working when the session
 * ends, expires, or the impersonator is no longer an active SuperAdmin. What is done with it is
 * audited by the platform's ImpersonationAuditInterceptor.
 */
@Injectable()
export class ImpersonationService {
  constructor(
    private readonly repo: ImpersonationRepository,
    private readonly users: UsersService,
    private readonly tokens: TokenService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
  ) {}

  async start(actor: Principal, targetId: string, reason: string): Promise<{ token: string; impersonation: ImpersonationSession }> {
    const target = await this.users.findById(targetId);
    if (!target) throw AppError.notFound('User');
    const refusal = impersonationRefusal(target);
    if (refusal) throw refused(refusal);
    const now = Date.now();
    const row = await this.dbService.transaction(() =>
      this.repo.insert({ impersonatorId: actor.userId, targetUserId: target.id, reason, startedAt: new Date(now), expiresAt: new Date(now + IMPERSONATION_TTL_S * 1000) }),
    );
    const token = await this.tokens.sign(
      {
        userId: target.id,
        email: target.email,
        name: target.name,
        platformRole: target.platformRole,
        orgMemberships: await this.users.memberships(target.id),
        impersonatorId: actor.userId,
        impersonationId: row.id,
      },
      now,
      IMPERSONATION_TTL_S,
    );
    await this.audit.record({ action: 'admin.impersonation.started', userId: actor.userId, resourceId: target.id, meta: { impersonationId: row.id, reason } });
    return { token, impersonation: (await this.toDtos([row]))[0]! };
  }

  /**
   * Ends the caller's impersonation session (called with the impersonation token), or, for a
   * SuperAdmin's own token, the one named or all of theirs. The SuperAdmin's own session was
   * never touched: the web app switches back to it.
   */
  async stop(principal: Principal, impersonationId?: string): Promise<ImpersonationSession[]> {
    let ended: ImpersonationSessionRow[];
    if (principal.impersonationId) {
      ended = await this.repo.end({ id: principal.impersonationId }, new Date());
    } else if (principal.platformRole === 'superadmin') {
      ended = await this.repo.end(impersonationId ? { id: impersonationId } : { impersonatorId: principal.userId }, new Date());
      if (impersonationId && ended.length === 0) throw AppError.notFound('Open impersonation session');
    } else {
      throw AppError.conflict('You are not impersonating anyone');
    }
    for (const s of ended) {
      await this.audit.record({
        action: 'admin.impersonation.stopped',
        userId: s.impersonatorId,
        resourceId: s.targetUserId,
        impersonatorId: principal.impersonatorId ?? null,
        meta: { impersonationId: s.id, stoppedBy: principal.impersonatorId ?? principal.userId },
      });
    }
    return this.toDtos(ended);
  }

  /** The RequestAuthenticator's check for every impersonation token. */
  async isOpen(claims: ImpersonationClaims): Promise<boolean> {
    const session = await this.repo.findOpen({ id: claims.impersonationId, impersonatorId: claims.impersonatorId, targetUserId: claims.targetUserId }, new Date());
    if (!session) return false;
    const impersonator = await this.users.load(claims.impersonatorId);
    return impersonator?.platformRole === 'superadmin' && impersonator.status === 'active';
  }

  async list(q: { active?: 'true' | 'false'; limit: number; cursor?: string }) {
    const active = q.active === undefined ? undefined : q.active === 'true';
    const rows = await this.repo.list({ active }, { limit: q.limit, after: decodeCursor(q.cursor) }, new Date());
    const page = pageOf(rows, q.limit, (r) => ({ at: r.startedAt, id: r.id }), (r) => r);
    return { items: await this.toDtos(page.items), nextCursor: page.nextCursor };
  }

  private async toDtos(rows: ImpersonationSessionRow[]): Promise<ImpersonationSession[]> {
    const people = new Map((await this.users.findByIds(rows.flatMap((r) => [r.impersonatorId, r.targetUserId]))).map((u) => [u.id, { id: u.id, email: u.email, name: u.name }]));
    const ref = (id: string) => people.get(id) ?? { id, email: '', name: '' };
    const now = Date.now();
    return rows.map((r) => ({
      id: r.id,
      impersonator: ref(r.impersonatorId),
      target: ref(r.targetUserId),
      reason: r.reason,
      startedAt: r.startedAt.toISOString(),
      expiresAt: r.expiresAt.toISOString(),
      endedAt: r.endedAt?.toISOString() ?? null,
      active: r.endedAt === null && r.expiresAt.getTime() > now,
    }));
  }
}
