import { logger } from './logger.js';

/**
 * What a security event is about (API-MAP "Sessions, sockets and hardening"). One structured line
 * each, `event: 'security.<what>'`, never with a secret in it: callers pass identifiers (user id,
 * email, IP, route, channel, reason), not codes, tokens or signatures.
 */
export type SecurityEventName = 'login_failed' | 'otp_failed' | 'second_factor_failed' | 'lockout' | 'token_refused' | 'token_revoked' | 'webhook_signature_invalid' | 'socket_refused' | (string & {});

export function securityEvent(what: SecurityEventName, fields: Record<string, unknown> = {}): void {
  logger.warn({ ...fields, event: `security.${what}` }, `security.${what}`);
}
