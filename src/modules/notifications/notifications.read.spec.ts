import { describe, expect, it } from 'vitest';
import { markReadOutcome, type MarkReadOutcome } from './notifications.read.js';

/** Spec 3.4 and 7.2, every (requester, state) pair. */
const TABLE: Array<{ requester: 'recipient' | 'other'; readAt: Date | null; outcome: MarkReadOutcome }> = [
  { requester: 'recipient', readAt: null, outcome: 'set_read_at' },
  { requester: 'recipient', readAt: new Date('2026-11-01T00:00:00Z'), outcome: 'unchanged' },
  { requester: 'other', readAt: null, outcome: 'forbidden' },
  { requester: 'other', readAt: new Date('2026-11-01T00:00:00Z'), outcome: 'forbidden' },
];

describe('notification read (spec 3.4)', () => {
  for (const row of TABLE) {
    it(`mark read by the ${row.requester} of a${row.readAt ? ' read' : 'n unread'} notification: ${row.outcome}`, () => {
      expect(markReadOutcome({ recipientUserId: 'u-1', readAt: row.readAt }, row.requester === 'recipient' ? 'u-1' : 'u-2')).toBe(row.outcome);
    });
  }
});
