import type { OrgStatus } from '../../contracts/orgs.js';

/**
 * The org status table of spec 3.2 (with the transitions it leaves open that we chose:
 * trial_ending and the stale-org archive are scheduled jobs, not API calls). Every write of an
 * org's status is one of these rows; `refused` finishes "An org in <status> cannot ...".
 */
export const ORG_TRANSITIONS = {
  send_invite: { from: ['pending_am_setup', 'pending_client_confirmation'], to: 'pending_client_confirmation', refused: 'be invited' },
  finish_without_invite: { from: ['pending_am_setup'], to: 'active', refused: 'be finished' },
  client_confirms: { from: ['pending_client_confirmation'], to: 'active', refused: 'be confirmed' },
  grace_elapsed: { from: ['active', 'trial_ending'], to: 'suspended', refused: 'be suspended' },
  // Our way back (spec 3.6 leaves it open): the payment that clears the dunning reactivates at once.
  payment_recovered: { from: ['suspended'], to: 'active', refused: 'be reactivated' },
  trial_ending: { from: ['active'], to: 'trial_ending', refused: 'enter trial_ending' },
  stale_archive: { from: ['pending_am_setup', 'pending_client_confirmation'], to: 'deactivated', refused: 'be archived' },
} as const satisfies Record<string, { from: readonly OrgStatus[]; to: OrgStatus; refused: string }>;
export type OrgTransition = keyof typeof ORG_TRANSITIONS;

export function canTransition(transition: OrgTransition, from: OrgStatus): boolean {
  return (ORG_TRANSITIONS[transition].from as readonly OrgStatus[]).includes(from);
}

export type OrgTransitionResult = { ok: true; to: OrgStatus } | { ok: false; message: string };

/** Where `transition` takes an org in `from`, or why it is refused (a conflict). */
export function orgTransition(transition: OrgTransition, from: OrgStatus): OrgTransitionResult {
  const row = ORG_TRANSITIONS[transition];
  return canTransition(transition, from) ? { ok: true, to: row.to } : { ok: false, message: `An org in ${from} cannot ${row.refused}` };
}
