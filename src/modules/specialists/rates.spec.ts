import { describe, expect, it } from 'vitest';
import { mailboxActionRefusal, mailboxBadge, resolveRate } from './rates.js';

const catalog = { base_rate: 1200, currency: 'EUR' };
const osa = (monthlyRate: number | null, from: string | null = null, until: string | null = null) => ({ monthlyRate, rateEffectiveFrom: from, rateEffectiveUntil: until });

describe('rate resolution (spec 2.3)', () => {
  it('uses the override inside its window, else the catalog rate, else null', () => {
    expect(resolveRate(osa(null), catalog, '2026-11-22')).toEqual({ amount: 1200, currency: 'EUR', source: 'specialist' });
    expect(resolveRate(osa(900), catalog, '2026-11-22')).toEqual({ amount: 900, currency: 'EUR', source: 'override' });
    expect(resolveRate(osa(900, '2026-12-01'), catalog, '2026-11-22')!.source).toBe('specialist');
    expect(resolveRate(osa(900, '2026-11-01', '2026-11-22'), catalog, '2026-11-22')!.source).toBe('override');
    expect(resolveRate(osa(900, null, '2026-11-21'), catalog, '2026-11-22')!.source).toBe('specialist');
    expect(resolveRate(osa(null), null, '2026-11-22')).toBeNull();
  });
});

describe('mailbox lifecycle (spec 3.3)', () => {
  const m = (user: string | null, suspended: boolean, archived: boolean) => ({
    mailboxUserId: user,
    mailboxSuspendedAt: suspended ? new Date() : null,
    mailboxArchivedAt: archived ? new Date() : null,
  });
  it('shows Archived over Suspended over Provisioned', () => {
    expect(mailboxBadge(m('u', true, true))).toBe('archived');
    expect(mailboxBadge(m('u', true, false))).toBe('suspended');
    expect(mailboxBadge(m('u', false, false))).toBe('provisioned');
    expect(mailboxBadge(m(null, false, false))).toBe('none');
    expect(mailboxBadge(m(null, false, false), true)).toBe('provisioning');
  });
  it('allows each action only in its states', () => {
    expect(mailboxActionRefusal('provision', m(null, false, false))).toBeNull();
    expect(mailboxActionRefusal('provision', m('u', false, false))).not.toBeNull();
    expect(mailboxActionRefusal('provision', m(null, false, true))).not.toBeNull();
    expect(mailboxActionRefusal('suspend', m('u', false, false))).toBeNull();
    expect(mailboxActionRefusal('suspend', m(null, false, false))).toMatch(/no mailbox user/);
    expect(mailboxActionRefusal('suspend', m('u', true, false))).toMatch(/already suspended/);
    expect(mailboxActionRefusal('suspend', m('u', false, true))).toMatch(/archived/);
    expect(mailboxActionRefusal('restore', m('u', true, false))).toBeNull();
    expect(mailboxActionRefusal('restore', m('u', false, false))).not.toBeNull();
    expect(mailboxActionRefusal('restore', m('u', true, true))).not.toBeNull();
  });
});
