import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { ImpersonationSession, ImpersonationStopped } from '../../contracts/admin.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { AccessEvents, type AccessChange } from '../../platform/auth/access-events.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { ImpersonationClaims } from '../../platform/auth/request-auth.js';
import { systemNow } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { decodeCursor, pageOf } from '../../platform/http/pagination.js';
import { SessionsService } from '../auth/index.js';
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
 *
 * The impersonation token has a sign-in session of its own; the row also keeps the SuperAdmin's
 * session that started it, so that the browser holds only the impersonation token meanwhile and
 * gets the SuperAdmin's session back, re-signed, when it stops.
 */
@Injectable()
export class ImpersonationService implements OnModuleInit {
  constructor(
    private readonly repo: ImpersonationRepository,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly accessEvents: AccessEvents,
  ) {}

  onModuleInit(): void {
    // A sign-out of the impersonation's own session, or of every session of either user, ends it too.
    this.accessEvents.on((change) => this.followAccessChange(change));
  }

  async start(actor: Principal, targetId: string, reason: string): Promise<{ token: string; impersonation: ImpersonationSession }> {
    const target = await this.users.findById(targetId);
    if (!target) throw AppError.notFound('User');
    const refusal = impersonationRefusal(target);
    if (refusal) throw refused(refusal);
    const now = systemNow().getTime();
    const id = randomUUID();
    const memberships = await this.users.memberships(target.id);
    const { token, row } = await this.dbService.transaction(async () => {
      const session = await this.sessions.open(
        {
          userId: target.id,
          email: target.email,
          name: target.name,
          platformRole: target.platformRole,
          orgMemberships: memberships,
          impersonatorId: actor.userId,
          impersonationId: id,
        },
        'impersonation',
        IMPERSONATION_TTL_S,
      );
      const inserted = await this.repo.insert({
        id,
        impersonatorId: actor.userId,
        targetUserId: target.id,
        reason,
        startedAt: new Date(now),
        expiresAt: session.expiresAt,
        sessionId: session.sessionId,
        impersonatorSessionId: actor.sessionId,
      });
      return { token: session.token, row: inserted };
    });
    await this.audit.record({ action: 'admin.impersonation.started', userId: actor.userId, resourceId: target.id, meta: { impersonationId: row.id, reason } });
    return { token, impersonation: (await this.toDtos([row]))[0]! };
  }

  /**
   * Ends the caller's impersonation session (called with the impersonation token) and gives the
   * SuperAdmin's own session back as `token`, re-signed, when it is still open and its user still an
   * active SuperAdmin (otherwise no token: the browser signs in again). With a SuperAdmin's own
   * token: ends the session named, or all of theirs.
   */
  async stop(principal: Principal, impersonationId?: string): Promise<ImpersonationStopped> {
    if (principal.impersonationId) {
      const ownId = principal.impersonationId;
      const ended = await this.endAll({ id: ownId }, { stoppedBy: principal.impersonatorId ?? principal.userId, impersonatorId: principal.impersonatorId });
      const token = await this.giveBack(ended[0] ?? (await this.repo.findById(ownId)));
      return { ended: await this.toDtos(ended), ...(token ? { token } : {}) };
    }
    // Impersonation is the SuperAdmin's (spec 4.7, 5.1): anyone else without an impersonation token is refused.
    if (principal.platformRole !== 'superadmin') throw AppError.forbidden('Only a SuperAdmin can stop an impersonation');
    const ended = await this.endAll(impersonationId ? { id: impersonationId } : { impersonatorId: principal.userId }, { stoppedBy: principal.userId });
    if (impersonationId && ended.length === 0) throw AppError.notFound('Open impersonation session');
    return { ended: await this.toDtos(ended) };
  }

  /** Ends open impersonations and their sign-in sessions in one transaction, and audits each. */
  private async endAll(where: Parameters<ImpersonationRepository['end']>[0], by: { stoppedBy?: string; impersonatorId?: string; cause?: AccessChange['kind'] }): Promise<ImpersonationSessionRow[]> {
    const ended = await this.dbService.transaction(async () => {
      const rows = await this.repo.end(where, systemNow());
      await this.sessions.end(
        rows.flatMap((r) => (r.sessionId ? [r.sessionId] : [])),
        'impersonation_stopped',
      );
      return rows;
    });
    for (const s of ended) {
      await this.audit.record({
        action: 'admin.impersonation.stopped',
        userId: s.impersonatorId,
        resourceId: s.targetUserId,
        impersonatorId: by.impersonatorId ?? null,
        meta: { impersonationId: s.id, ...(by.stoppedBy ? { stoppedBy: by.stoppedBy } : {}), ...(by.cause ? { cause: by.cause } : {}) },
      });
    }
    return ended;
  }

  /** The SuperAdmin's session that started the impersonation, re-signed; null when it may not come back. */
  private async giveBack(row: ImpersonationSessionRow | undefined): Promise<string | null> {
    if (!row?.impersonatorSessionId) return null;
    const superadmin = await this.users.load(row.impersonatorId);
    if (superadmin?.platformRole !== 'superadmin') return null;
    return this.sessions.resume(row.impersonatorSessionId, superadmin);
  }

  private async followAccessChange(change: AccessChange): Promise<void> {
    if (change.kind === 'session_ended') {
      // Stop ends the impersonation first, so only a sign-out finds it open here: the browser then
      // held no other token, and the SuperAdmin's session that started it ends with it.
      const ended = await this.endAll({ sessionId: change.sessionId }, { cause: change.kind });
      await this.sessions.end(
        ended.flatMap((r) => (r.impersonatorSessionId ? [r.impersonatorSessionId] : [])),
        'logout',
      );
    }
    if (change.kind === 'user_revoked') await this.endAll({ userOnEitherSide: change.userId }, { stoppedBy: change.userId, cause: change.kind });
  }

  /** The RequestAuthenticator's check for every impersonation token. */
  async isOpen(claims: ImpersonationClaims): Promise<boolean> {
    const session = await this.repo.findOpen({ id: claims.impersonationId, impersonatorId: claims.impersonatorId, targetUserId: claims.targetUserId }, systemNow());
    if (!session) return false;
    const impersonator = await this.users.load(claims.impersonatorId);
    return impersonator?.platformRole === 'superadmin' && impersonator.status === 'active';
  }

  async list(q: { active?: 'true' | 'false'; limit: number; cursor?: string }) {
    const active = q.active === undefined ? undefined : q.active === 'true';
    const rows = await this.repo.list({ active }, { limit: q.limit, after: decodeCursor(q.cursor) }, systemNow());
    const page = pageOf(
      rows,
      q.limit,
      (r) => ({ at: r.startedAt, id: r.id }),
      (r) => r,
    );
    return { items: await this.toDtos(page.items), nextCursor: page.nextCursor };
  }

  private async toDtos(rows: ImpersonationSessionRow[]): Promise<ImpersonationSession[]> {
    const people = new Map((await this.users.findByIds(rows.flatMap((r) => [r.impersonatorId, r.targetUserId]))).map((u) => [u.id, { id: u.id, email: u.email, name: u.name }]));
    const ref = (id: string) => people.get(id) ?? { id, email: '', name: '' };
    const now = systemNow().getTime();
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
