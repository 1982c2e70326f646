import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AuditService } from '../../platform/audit/audit.service.js';
import { AccessEvents } from '../../platform/auth/access-events.js';
import type { Principal, PrincipalRecord } from '../../platform/auth/principal.js';
import { TOKEN_LIFETIME_S, TokenService, type TokenSubject } from '../../platform/auth/token.service.js';
import { systemNow } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { SchedulerService } from '../../platform/queue/scheduler.service.js';
import type { SessionEndReason } from './auth.tables.js';
import { SessionsRepository } from './sessions.repository.js';

/** How long an expired session is kept (who signed in when, and how it ended) before it is deleted. */
export const EXPIRED_SESSION_RETENTION_MS = 30 * 24 * 60 * 60_000;

export interface OpenedSession {
  token: string;
  sessionId: string;
  expiresAt: Date;
}

/**
 * Server-side sign-in sessions (API-MAP "Sessions, sockets and hardening"): every way of signing in
 * opens one and its token names it (`sid`); the RequestAuthenticator refuses a token whose session
 * has ended or expired. Ends are announced to open sockets once committed.
 */
@Injectable()
export class SessionsService implements OnModuleInit {
  constructor(
    private readonly repo: SessionsRepository,
    private readonly tokens: TokenService,
    private readonly dbService: DbService,
    private readonly accessEvents: AccessEvents,
    private readonly audit: AuditService,
    private readonly scheduler: SchedulerService,
  ) {}

  onModuleInit(): void {
    this.scheduler.every('auth.sessions-cleanup', 60 * 60_000, async () => {
      await this.deleteExpired();
    });
  }

  /** Deletes sessions expired for longer than the retention; returns how many. */
  deleteExpired(now = systemNow().getTime()): Promise<number> {
    return this.repo.deleteExpiredBefore(new Date(now - EXPIRED_SESSION_RETENTION_MS));
  }

  /** Opens a session for a user who has just proven who they are, and signs its token (7 days unless `lifetimeS` is shorter). */
  async open(subject: Omit<TokenSubject, 'sessionId'>, method: string, lifetimeS = TOKEN_LIFETIME_S): Promise<OpenedSession> {
    const now = systemNow().getTime();
    // The session ends when its token expires: at the token's `exp`, whole seconds.
    const expiresAt = new Date((Math.floor(now / 1000) + Math.min(lifetimeS, TOKEN_LIFETIME_S)) * 1000);
    const row = await this.repo.insert({ userId: subject.userId, method, createdAt: new Date(now), expiresAt });
    const token = await this.tokens.sign({ ...subject, sessionId: row.id }, now, lifetimeS);
    return { token, sessionId: row.id, expiresAt };
  }

  /**
   * A new token for a session of `user` that is still open, valid until the session expires; null
   * when the session ended, expired, is another user's, or the user is not active or changed the
   * password since it began (its tokens are revoked then).
   */
  async resume(sessionId: string, user: PrincipalRecord): Promise<string | null> {
    const row = await this.repo.findById(sessionId);
    const now = systemNow().getTime();
    if (!row || row.userId !== user.id || row.endedAt || user.status !== 'active') return null;
    if (user.passwordChangedAt.getTime() > row.createdAt.getTime()) return null;
    const lifetimeS = Math.floor((row.expiresAt.getTime() - now) / 1000);
    if (lifetimeS <= 0) return null;
    return this.tokens.sign({ userId: user.id, email: user.email, name: user.name, platformRole: user.platformRole, orgMemberships: user.orgMemberships, sessionId }, now, lifetimeS);
  }

  /** `POST /auth/logout`: the presented session, or with `all` every session of the caller. */
  async logout(principal: Principal, all: boolean): Promise<void> {
    const now = systemNow();
    if (all) {
      const ended = await this.repo.end({ userId: principal.userId }, 'logout_all', now);
      this.accessEvents.emit({ kind: 'user_revoked', userId: principal.userId });
      await this.audit.record({
        action: 'auth.logout',
        userId: principal.userId,
        resourceId: principal.userId,
        impersonatorId: principal.impersonatorId ?? null,
        meta: { all: true, sessions: ended.length },
      });
      return;
    }
    await this.end([principal.sessionId], 'logout');
    await this.audit.record({
      action: 'auth.logout',
      userId: principal.userId,
      resourceId: principal.userId,
      impersonatorId: principal.impersonatorId ?? null,
      meta: { sessionId: principal.sessionId },
    });
  }

  /** Ends the open sessions among `ids` (joining the caller's transaction); each end is announced after commit. */
  async end(ids: string[], reason: SessionEndReason): Promise<string[]> {
    const ended = await this.repo.end({ ids }, reason, systemNow());
    for (const sessionId of ended) this.dbService.afterCommit(() => this.accessEvents.emit({ kind: 'session_ended', sessionId }));
    return ended;
  }
}
