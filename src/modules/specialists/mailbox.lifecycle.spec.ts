import { describe, expect, it } from 'vitest';
import { mailboxActionRefusal, mailboxBadge, type MailboxAction, type MailboxTimestamps } from './mailbox.lifecycle.js';

/** Every combination of the three timestamps of spec 3.3. */
const STATES = [false, true].flatMap((user) => [false, true].flatMap((suspended) => [false, true].map((archived) => ({ user, suspended, archived }))));
type State = (typeof STATES)[number];
const at = new Date('2026-11-01T00:00:00Z');
const timestamps = (s: State): MailboxTimestamps => ({
  mailboxUserId: s.user ? 'mbx-1' : null,
  mailboxSuspendedAt: s.suspended ? at : null,
  mailboxArchivedAt: s.archived ? at : null,
});
const name = (s: State) => `user ${s.user ? 'yes' : 'no'}, suspended ${s.suspended ? 'yes' : 'no'}, archived ${s.archived ? 'yes' : 'no'}`;

/** The conditions column of spec 3.3, row by row. */
const ALLOWED: Record<MailboxAction, (s: State) => boolean> = {
  provision: (s) => !s.user && !s.archived,
  suspend: (s) => s.user && !s.suspended && !s.archived,
  restore: (s) => s.suspended && !s.archived,
};

describe('mailbox lifecycle (spec 3.3)', () => {
  for (const s of STATES) {
    for (const action of Object.keys(ALLOWED) as MailboxAction[]) {
      const allowed = ALLOWED[action](s);
      it(`${action} with ${name(s)}: ${allowed ? 'allowed' : 'refused'}`, () => {
        const refusal = mailboxActionRefusal(action, timestamps(s));
        if (allowed) expect(refusal).toBeNull();
        else expect(refusal).toEqual(expect.any(String));
      });
    }

    const badge = s.archived ? 'archived' : s.suspended ? 'suspended' : s.user ? 'provisioned' : null;
    it(`shows ${badge ?? 'none, or provisioning while queued'} with ${name(s)} (Archived, then Suspended, then Provisioned)`, () => {
      expect(mailboxBadge(timestamps(s))).toBe(badge ?? 'none');
      expect(mailboxBadge(timestamps(s), true)).toBe(badge ?? 'provisioning');
    });
  }

  it('allows each action only in its states', () => {
    const table = STATES.map((s) => (Object.keys(ALLOWED) as MailboxAction[]).map((action) => mailboxActionRefusal(action, timestamps(s)) === null));
    expect(table).toEqual(STATES.map((s) => (Object.keys(ALLOWED) as MailboxAction[]).map((action) => ALLOWED[action](s))));
  });

  it('shows Archived over Suspended over Provisioned', () => {
    expect(mailboxBadge(timestamps({ user: true, suspended: true, archived: true }))).toBe('archived');
    expect(mailboxBadge(timestamps({ user: true, suspended: true, archived: false }))).toBe('suspended');
    expect(mailboxBadge(timestamps({ user: true, suspended: false, archived: false }))).toBe('provisioned');
  });

  it('says why Suspend is refused: no mailbox user, already suspended, or archived', () => {
    expect(mailboxActionRefusal('suspend', timestamps({ user: false, suspended: false, archived: false }))).toMatch(/no mailbox user/);
    expect(mailboxActionRefusal('suspend', timestamps({ user: true, suspended: true, archived: false }))).toMatch(/already suspended/);
    expect(mailboxActionRefusal('suspend', timestamps({ user: true, suspended: false, archived: true }))).toMatch(/archived/);
  });
});
