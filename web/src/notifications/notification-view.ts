import type { PlatformRole } from '@contracts';
import type { NotificationDto } from '@contracts/notifications';
import { OPS_ROLES, WORKSPACE_ROLES, isClientRole } from '../auth/roles';

/**
 * When a notification was made. Its wire shape has no time of its own (spec 2.6: exactly id,
 * userId, type, message, title, meta, readAt); the server makes every id a time-ordered UUID
 * (version 7), whose first 48 bits are the creation time in milliseconds. Null for another kind.
 */
export function createdAtOf(notification: Pick<NotificationDto, 'id'>): Date | null {
  const hex = notification.id.replace(/-/g, '');
  if (hex.length !== 32 || hex[12] !== '7') return null;
  const ms = Number.parseInt(hex.slice(0, 12), 16);
  return Number.isFinite(ms) ? new Date(ms) : null;
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "just now", "5 minutes ago", "yesterday", "3 weeks ago". */
export function relativeTime(at: Date, now: Date = new Date()): string {
  const diff = at.getTime() - now.getTime();
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms) return relative.format(Math.round(diff / ms), unit);
  }
  return 'just now';
}

/** The exact time, for the hover title: "Mon, 3 Mar 2025, 14:05". */
export function exactTime(at: Date): string {
  return at.toLocaleString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
}

const text = (meta: NotificationDto['meta'], key: string): string | null => {
  const value = meta?.[key];
  return typeof value === 'string' && value !== '' ? value : null;
};
const is = (role: PlatformRole, roles: readonly PlatformRole[]) => roles.includes(role);

/** Where a notification leads for this reader, from its meta, with the words of the link; null when nowhere. */
export function notificationLink(notification: Pick<NotificationDto, 'type' | 'meta'>, role: PlatformRole): { to: string; label: string } | null {
  const meta = notification.meta;
  const conversationId = text(meta, 'conversationId');
  const orgId = text(meta, 'orgId');
  const assignmentId = text(meta, 'assignmentId');
  const billing = notification.type.startsWith('billing.') || text(meta, 'invoiceId') !== null;
  if (isClientRole(role)) {
    if (conversationId) return { to: `/client/chat?conversation=${encodeURIComponent(conversationId)}`, label: 'Open the conversation' };
    if (billing) return { to: '/client/settings/billing', label: 'Open billing' };
    return null;
  }
  if (conversationId && is(role, WORKSPACE_ROLES)) return { to: `/workspace/queue/${encodeURIComponent(conversationId)}`, label: 'Open the conversation' };
  if (!is(role, OPS_ROLES)) return null;
  if (billing) return { to: '/ops/billing', label: 'Open billing' };
  if (orgId && assignmentId) return { to: `/ops/clients/${encodeURIComponent(orgId)}/specialists/${encodeURIComponent(assignmentId)}`, label: 'Open the Specialist' };
  if (orgId) return { to: `/ops/clients/${encodeURIComponent(orgId)}`, label: 'Open the client' };
  return null;
}
