import { z } from 'zod';

/** Body of `POST /notifications` (spec 4.5). */
export const CreateNotificationDtoSchema = z.object({
  userId: z.uuid(),
  type: z.string().trim().min(1).max(100),
  message: z.string().trim().min(1).max(10_000),
  // Optional (spec 4.5) and stored nullable (spec 2.6): absent and null both mean none.
  title: z.string().max(500).nullish(),
  meta: z.record(z.string(), z.unknown()).nullish(),
});
export type CreateNotificationDto = z.infer<typeof CreateNotificationDtoSchema>;

/** The wire shape of a notification, identical on REST and over the socket: exactly the fields of spec 2.6. */
export const NotificationDtoSchema = z.object({
  id: z.uuid(),
  userId: z.string(),
  type: z.string(),
  message: z.string().nullable(),
  title: z.string().nullable(),
  meta: z.record(z.string(), z.unknown()).nullable(),
  readAt: z.string().nullable(),
});
export type NotificationDto = z.infer<typeof NotificationDtoSchema>;

/** A query integer that never fails: absent or unreadable gives the default, out of range is clamped. */
const clampedInt = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .preprocess((v) => {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
      return Number.isFinite(n) ? Math.trunc(n) : undefined;
    }, z.number().int().optional())
    .transform((n) => Math.min(max, Math.max(min, n ?? fallback)));

/** `?limit=&offset=`: limit default 50, clamped to 1..200; offset default 0 (spec 8). */
export const NotificationListQuerySchema = z.object({
  limit: clampedInt(50, 1, 200),
  offset: clampedInt(0, 0),
});

/** The inbox tabs of spec 6.2, classified by `type`. */
export type InboxTab = 'all' | 'mentions' | 'assignments' | 'system';
export function inboxTabOf(type: string): Exclude<InboxTab, 'all'> {
  const t = type.toLowerCase();
  if (t.includes('mention')) return 'mentions';
  if (t.includes('assign') || t.startsWith('expert_queue') || t.startsWith('queue')) return 'assignments';
  return 'system';
}

/** `PATCH /notifications/read-all`: how many notifications it marked read. */
export const MarkAllReadResponseSchema = z.object({ updated: z.number().int() });
export type MarkAllReadResponse = z.infer<typeof MarkAllReadResponseSchema>;
