/**
 * The notification read state of spec 3.4: unread while `read_at` is null, read once it is set.
 * What a mark-read by `requesterId` does: refused for anyone but the recipient (403, spec 7.2),
 * nothing on a read one (idempotent), else set `read_at` once.
 */
export type MarkReadOutcome = 'forbidden' | 'unchanged' | 'set_read_at';

export function markReadOutcome(n: { recipientUserId: string; readAt: Date | null }, requesterId: string): MarkReadOutcome {
  if (n.recipientUserId !== requesterId) return 'forbidden';
  return n.readAt ? 'unchanged' : 'set_read_at';
}
