import { Injectable } from '@nestjs/common';
import { logger } from '../observability/logger.js';

/**
 * A change of who may see what, announced after it has committed, so that open sockets follow it
 * (API-MAP "Sessions, sockets and hardening"): REST already re-reads the caller on every request.
 * - `user_revoked`: every session of the user is gone (suspension, deactivation, password change,
 *   logout of all sessions): its sockets are disconnected.
 * - `session_ended`: one session ended (logout, impersonation stopped): its sockets are disconnected.
 * - `reach_changed`: the user's orgs or grants changed (membership removed, role changed, Expert grant
 *   removed): its sockets leave the rooms they may no longer be in.
 */
export type AccessChange = { kind: 'user_revoked'; userId: string } | { kind: 'session_ended'; sessionId: string } | { kind: 'reach_changed'; userId: string };

export type AccessChangeListener = (change: AccessChange) => void | Promise<void>;

/** The in-process bus of access changes; the real-time layer carries them to every instance. */
@Injectable()
export class AccessEvents {
  private readonly listeners: AccessChangeListener[] = [];

  on(listener: AccessChangeListener): void {
    this.listeners.push(listener);
  }

  /** Call after the change has committed. A listener's failure is logged, never thrown to the caller. */
  emit(change: AccessChange): void {
    for (const listener of this.listeners) {
      void Promise.resolve()
        .then(() => listener(change))
        .catch((err: unknown) => logger.warn({ err, change }, 'access change listener failed'));
    }
  }
}
