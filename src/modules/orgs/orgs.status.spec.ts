import { describe, expect, it } from 'vitest';
import { ORG_STATUSES, type OrgStatus } from '../../contracts/orgs.js';
import { ORG_TRANSITIONS, canTransition, orgTransition, type OrgTransition } from './orgs.status.js';

/**
 * Spec 3.2, row by row, and the rows it leaves open that we chose (docs: trial_ending, the
 * stale-org archive, reactivation on payment). Every other (transition, status) pair is refused.
 */
const TABLE: Record<OrgTransition, { from: OrgStatus[]; to: OrgStatus }> = {
  send_invite: { from: ['pending_am_setup', 'pending_client_confirmation'], to: 'pending_client_confirmation' },
  finish_without_invite: { from: ['pending_am_setup'], to: 'active' },
  client_confirms: { from: ['pending_client_confirmation'], to: 'active' },
  grace_elapsed: { from: ['active', 'trial_ending'], to: 'suspended' },
  payment_recovered: { from: ['suspended'], to: 'active' },
  trial_ending: { from: ['active'], to: 'trial_ending' },
  stale_archive: { from: ['pending_am_setup', 'pending_client_confirmation'], to: 'deactivated' },
};

describe('org status (spec 3.2)', () => {
  it('knows exactly the transitions of the table', () => {
    expect(Object.keys(ORG_TRANSITIONS).sort()).toEqual(Object.keys(TABLE).sort());
  });

  for (const [transition, row] of Object.entries(TABLE) as Array<[OrgTransition, (typeof TABLE)[OrgTransition]]>) {
    for (const from of ORG_STATUSES) {
      const allowed = row.from.includes(from);
      it(`${transition} from ${from}: ${allowed ? row.to : 'refused'}`, () => {
        expect(canTransition(transition, from)).toBe(allowed);
        const result = orgTransition(transition, from);
        if (allowed) expect(result).toEqual({ ok: true, to: row.to });
        else expect(result).toEqual({ ok: false, message: expect.stringMatching(new RegExp(`^An org in ${from} cannot `)) });
      });
    }
  }

  it('refuses with the messages the API answers 409 with', () => {
    expect(orgTransition('send_invite', 'active')).toEqual({ ok: false, message: 'An org in active cannot be invited' });
    expect(orgTransition('client_confirms', 'pending_am_setup')).toEqual({ ok: false, message: 'An org in pending_am_setup cannot be confirmed' });
    expect(orgTransition('finish_without_invite', 'pending_client_confirmation')).toEqual({ ok: false, message: 'An org in pending_client_confirmation cannot be finished' });
  });

  it('suspends only an active or trial_ending org when the grace period elapses, and brings only a suspended one back on payment', () => {
    expect(ORG_STATUSES.filter((st) => canTransition('grace_elapsed', st))).toEqual(['active', 'trial_ending']);
    expect(ORG_STATUSES.filter((st) => canTransition('payment_recovered', st))).toEqual(['suspended']);
  });

  it('has no transition into pending_specialist_assignment (spec 3.2, 9.4: defined, never set), nor out of it', () => {
    const transitions = Object.values(ORG_TRANSITIONS);
    expect(ORG_STATUSES).toContain('pending_specialist_assignment');
    expect(transitions.length).toBeGreaterThan(0);
    expect(transitions.filter((t) => (t.to as string) === 'pending_specialist_assignment')).toEqual([]);
    expect(transitions.filter((t) => (t.from as readonly string[]).includes('pending_specialist_assignment'))).toEqual([]);
    // Every other status the service sets is the target of some transition, or the status an org is created in.
    const targets = new Set<string>([...transitions.map((t) => t.to), 'pending_am_setup']);
    expect(ORG_STATUSES.filter((st) => !targets.has(st))).toEqual(['pending_specialist_assignment']);
  });
});
