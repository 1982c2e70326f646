import { describe, expect, it } from 'vitest';
import { CONVERSATION_STATUSES, type ConversationStatus } from '../../contracts/conversations.js';
import { transition, type StatusActor, type StatusTrigger } from './conversations.status.js';

const ALL = CONVERSATION_STATUSES;
const ok = (to: ConversationStatus) => expect.objectContaining({ ok: true, to });
const refused = (error: 'forbidden' | 'conflict') => expect.objectContaining({ ok: false, error });

describe('conversation status (spec 3.1), row by row', () => {
  it('pending -> awaiting_client when an Expert replies; other states keep theirs', () => {
    expect(transition('pending', { kind: 'expert_message' }, 'expert')).toEqual(ok('awaiting_client'));
    for (const s of ['awaiting_client', 'resolved', 'snoozed'] as const) expect(transition(s, { kind: 'expert_message' }, 'expert')).toEqual(ok(s));
  });

  it('a client message moves awaiting_client to pending and reopens resolved or snoozed threads', () => {
    for (const s of ALL) expect(transition(s, { kind: 'client_message' }, 'client')).toEqual(ok('pending'));
    // resolvedAt is kept: a reopen never re-stamps it.
    expect(transition('resolved', { kind: 'client_message' }, 'client', new Date())).toMatchObject({ stampResolvedAt: false });
  });

  it('a Specialist reply and an internal note change no status', () => {
    for (const s of ALL) {
      expect(transition(s, { kind: 'specialist_reply' }, 'system')).toEqual({ ok: true, to: s, changed: false, stampResolvedAt: false });
      expect(transition(s, { kind: 'internal_note' }, 'expert')).toMatchObject({ ok: true, to: s, changed: false });
    }
  });

  it('resolve: pending and awaiting_client -> resolved for any user of the thread, resolvedAt stamped on first entry only', () => {
    const actors: StatusActor[] = ['client', 'expert', 'account_manager', 'superadmin', 'ai_operator'];
    for (const actor of actors) {
      expect(transition('pending', { kind: 'resolve' }, actor)).toEqual({ ok: true, to: 'resolved', changed: true, stampResolvedAt: true });
      expect(transition('awaiting_client', { kind: 'resolve' }, actor)).toEqual(ok('resolved'));
    }
    expect(transition('pending', { kind: 'resolve' }, 'client', new Date())).toMatchObject({ stampResolvedAt: false });
    expect(transition('resolved', { kind: 'resolve' }, 'client')).toEqual(refused('conflict'));
    expect(transition('snoozed', { kind: 'resolve' }, 'client')).toEqual(refused('conflict'));
  });

  it('reopen: resolved -> pending for any user; refused from any other state', () => {
    expect(transition('resolved', { kind: 'reopen' }, 'client')).toEqual(ok('pending'));
    expect(transition('resolved', { kind: 'reopen' }, 'expert')).toEqual(ok('pending'));
    for (const s of ['pending', 'awaiting_client', 'snoozed'] as const) expect(transition(s, { kind: 'reopen' }, 'client')).toEqual(refused('conflict'));
  });

  it('dismiss: awaiting_client -> resolved by the client only', () => {
    expect(transition('awaiting_client', { kind: 'dismiss' }, 'client')).toEqual(ok('resolved'));
    for (const actor of ['expert', 'account_manager', 'superadmin', 'ai_operator'] as const) {
      expect(transition('awaiting_client', { kind: 'dismiss' }, actor)).toEqual(refused('forbidden'));
    }
    for (const s of ['pending', 'resolved', 'snoozed'] as const) expect(transition(s, { kind: 'dismiss' }, 'client')).toEqual(refused('conflict'));
  });

  it('snoozed -> pending when the deferral expires', () => {
    expect(transition('snoozed', { kind: 'snooze_expired' }, 'system')).toEqual(ok('pending'));
    for (const s of ['pending', 'awaiting_client', 'resolved'] as const) expect(transition(s, { kind: 'snooze_expired' }, 'system')).toEqual(refused('conflict'));
  });

  it('set status: any -> any for expert, account_manager and superadmin only', () => {
    for (const from of ALL) {
      for (const next of ALL) {
        for (const actor of ['expert', 'account_manager', 'superadmin'] as const) {
          expect(transition(from, { kind: 'set_status', to: next }, actor)).toEqual(expect.objectContaining({ ok: true, to: next, changed: from !== next }));
        }
        for (const actor of ['client', 'ai_operator'] as const) expect(transition(from, { kind: 'set_status', to: next }, actor)).toEqual(refused('forbidden'));
      }
    }
  });

  it('an escalation makes the thread pending', () => {
    for (const s of ALL) expect(transition(s, { kind: 'escalate' }, 'client')).toEqual(ok('pending'));
  });
});

describe('conversation status (spec 3.1), every trigger from every state by every actor', () => {
  const ACTORS: StatusActor[] = ['client', 'expert', 'account_manager', 'superadmin', 'ai_operator', 'system'];
  type Expected = ConversationStatus | 'conflict' | 'forbidden';
  // From pending, awaiting_client, resolved, snoozed (the order of CONVERSATION_STATUSES).
  const ROWS: Record<Exclude<StatusTrigger['kind'], 'set_status'>, (actor: StatusActor) => Expected[]> = {
    client_message: () => ['pending', 'pending', 'pending', 'pending'],
    expert_message: () => ['awaiting_client', 'awaiting_client', 'resolved', 'snoozed'],
    specialist_reply: () => ['pending', 'awaiting_client', 'resolved', 'snoozed'],
    internal_note: () => ['pending', 'awaiting_client', 'resolved', 'snoozed'],
    escalate: () => ['pending', 'pending', 'pending', 'pending'],
    resolve: () => ['resolved', 'resolved', 'conflict', 'conflict'],
    reopen: () => ['conflict', 'conflict', 'pending', 'conflict'],
    dismiss: (actor) => (actor === 'client' ? ['conflict', 'resolved', 'conflict', 'conflict'] : ['forbidden', 'forbidden', 'forbidden', 'forbidden']),
    snooze_expired: () => ['conflict', 'conflict', 'conflict', 'pending'],
  };

  it('lists the states in the order of the rows', () => {
    expect(ALL).toEqual(['pending', 'awaiting_client', 'resolved', 'snoozed']);
  });

  for (const [kind, row] of Object.entries(ROWS) as Array<[keyof typeof ROWS, (typeof ROWS)[keyof typeof ROWS]]>) {
    for (const actor of ACTORS) {
      it(`${kind} by ${actor}`, () => {
        const got = ALL.map((from) => {
          const r = transition(from, { kind }, actor);
          return r.ok ? r.to : r.error;
        });
        expect(got).toEqual(row(actor));
      });
    }
  }

  it('set status goes anywhere for expert, account_manager and superadmin, and nowhere for anyone else', () => {
    for (const actor of ACTORS) {
      const allowed = ['expert', 'account_manager', 'superadmin'].includes(actor);
      for (const from of ALL) for (const to of ALL) expect(transition(from, { kind: 'set_status', to }, actor)).toEqual(allowed ? ok(to) : refused('forbidden'));
    }
  });
});
