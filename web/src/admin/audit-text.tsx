import { Anchor, Text } from '@mantine/core';
import type { AuditItem, AuditRef } from '@contracts';
import { Fragment, type ReactNode } from 'react';
import { Link } from 'react-router';

/**
 * Every audit action the service writes, as a filter label and a sentence. In a sentence,
 * `{actor}` is who acted, `{target}` what it was done to, `{org}` the org of the row,
 * `{impersonator}` the SuperAdmin acting as the actor, `{expert}` the Expert named in the payload.
 */
export const AUDIT_ACTIONS: Record<string, { label: string; sentence: string }> = {
  'admin.user.updated': { label: 'User edited', sentence: '{actor} edited the account of {target}' },
  'admin.user.role_updated': { label: 'User role changed', sentence: '{actor} changed the role of {target}' },
  'admin.user.password_set': { label: 'Password set by a SuperAdmin', sentence: '{actor} set a new password for {target}' },
  'admin.user.password_reset_initiated': { label: 'Password reset code sent', sentence: '{actor} sent a password reset code to {target}' },
  'admin.user.removed': { label: 'User removed', sentence: '{actor} removed the account of {target}' },
  'admin.impersonation.started': { label: 'Impersonation started', sentence: '{actor} started acting as {target}' },
  'admin.impersonation.stopped': { label: 'Impersonation ended', sentence: '{actor} stopped acting as {target}' },
  'impersonation.action': { label: 'Action while impersonating', sentence: '{impersonator}, acting as {actor}, made a change' },
  'auth.bootstrap': { label: 'First SuperAdmin created', sentence: '{actor} was created as the first SuperAdmin' },
  'auth.login': { label: 'Signed in', sentence: '{actor} signed in' },
  'auth.logout': { label: 'Signed out', sentence: '{actor} signed out' },
  'auth.password_reset_completed': { label: 'Password reset completed', sentence: '{actor} chose a new password with a reset code' },
  'auth.recovery_code_used': { label: 'Recovery code used', sentence: '{actor} signed in with a recovery code' },
  'auth.2fa_enabled': { label: 'Two-factor sign-in turned on', sentence: '{actor} turned on two-factor sign-in' },
  'auth.2fa_disabled': { label: 'Two-factor sign-in turned off', sentence: '{actor} turned off two-factor sign-in' },
  'auth.2fa_recovery_codes_renewed': { label: 'Recovery codes renewed', sentence: '{actor} renewed their recovery codes' },
  'org.created': { label: 'Client created', sentence: '{actor} created the client {target}' },
  'org.updated': { label: 'Client edited', sentence: '{actor} edited the client {target}' },
  'org.finished': { label: 'Client setup finished', sentence: '{actor} finished the setup of {target}' },
  'org.invite_sent': { label: 'Client invited', sentence: '{actor} sent the onboarding invitation of {target}' },
  'org.invite_resent': { label: 'Client invitation sent again', sentence: '{actor} sent the onboarding invitation of {target} again' },
  'org.onboarding_completed': { label: 'Onboarding completed', sentence: '{actor} completed the onboarding of {target}' },
  'org.logo_updated': { label: 'Logo changed', sentence: '{actor} changed the logo of {target}' },
  'org.logo_removed': { label: 'Logo removed', sentence: '{actor} removed the logo of {target}' },
  'org.slug_alias_added': { label: 'Web address alias added', sentence: '{actor} added a web address alias to {target}' },
  'org.trial_ending': { label: 'Trial ending', sentence: 'The trial of {target} ends soon' },
  'org.stale_archived': { label: 'Client archived', sentence: '{target} was archived after its setup stalled' },
  'org.member.invited': { label: 'Member invited', sentence: '{actor} invited {target} to {org}' },
  'org.member.invitation_accepted': { label: 'Member invitation accepted', sentence: '{target} joined {org}' },
  'org.member.role_updated': { label: 'Member role changed', sentence: '{actor} changed the role of {target} in {org}' },
  'org.member.removed': { label: 'Member removed', sentence: '{actor} removed {target} from {org}' },
  'org.ownership_transferred': { label: 'Ownership transferred', sentence: '{actor} made {target} the owner of {org}' },
  'specialist.created': { label: 'Specialist created', sentence: '{actor} created the Specialist {target}' },
  'specialist.updated': { label: 'Specialist edited', sentence: '{actor} edited the Specialist {target}' },
  'osa.assigned': { label: 'Specialist assigned', sentence: '{actor} assigned {target} to {org}' },
  'osa.unassigned': { label: 'Specialist unassigned', sentence: '{actor} unassigned {target} from {org}' },
  'osa.rate_updated': { label: 'Assignment rate changed', sentence: '{actor} changed the rate of {target} at {org}' },
  'osa.alias_regenerated': { label: 'Specialist address renewed', sentence: 'The email address of {target} at {org} was renewed' },
  'osa.mailbox_provisioned': { label: 'Mailbox created', sentence: 'The mailbox of {target} at {org} was created' },
  'osa.mailbox_suspend': { label: 'Mailbox paused', sentence: '{actor} paused the mailbox of {target} at {org}' },
  'osa.mailbox_restore': { label: 'Mailbox restored', sentence: '{actor} restored the mailbox of {target} at {org}' },
  'expert_grant.created': { label: 'Expert coverage granted', sentence: '{actor} gave {expert} coverage of {org}' },
  'expert_grant.removed': { label: 'Expert coverage removed', sentence: '{actor} removed the coverage of {expert} at {org}' },
  'conversation.escalated': { label: 'Conversation escalated', sentence: '{actor} asked for a human in a conversation of {org}' },
  'conversation.assigned': { label: 'Conversation assigned', sentence: '{actor} assigned a conversation of {org} to {expert}' },
  'conversation.message.corrected': { label: 'Reply corrected', sentence: '{actor} corrected a reply in a conversation of {org}' },
  'integration.created': { label: 'Channel connected', sentence: '{actor} connected a channel for {org}' },
  'integration.updated': { label: 'Channel edited', sentence: '{actor} edited a channel of {org}' },
  'integration.verified': { label: 'Channel verified', sentence: 'A channel of {org} was verified' },
  'integration.removed': { label: 'Channel removed', sentence: '{actor} removed a channel of {org}' },
  'billing.email_updated': { label: 'Billing email changed', sentence: '{actor} changed the billing email of {org}' },
  'billing.payment_method_recorded': { label: 'Payment method recorded', sentence: 'A payment method was recorded for {org}' },
  'billing.payment_failed': { label: 'Payment failed', sentence: 'A payment of {org} failed' },
  'billing.org_suspended': { label: 'Client suspended for non-payment', sentence: '{org} was suspended after its grace period' },
  'billing.org_reactivated': { label: 'Client reactivated after payment', sentence: '{org} was reactivated after a payment' },
  'billing.cost_drift': { label: 'Cost check mismatch', sentence: 'The cost records of {org} differ from the outside tracing' },
  'client_brief.created': { label: 'Client brief created', sentence: '{actor} wrote a client brief for {org}' },
  'client_brief.updated': { label: 'Client brief edited', sentence: '{actor} edited a client brief of {org}' },
  'client_brief.deleted': { label: 'Client brief deleted', sentence: '{actor} deleted a client brief of {org}' },
  'tool_permission.updated': { label: 'Tool permission changed', sentence: '{actor} changed the permission of a Specialist tool' },
  'expert_queue.escalation': { label: 'Escalated to the Experts', sentence: 'A conversation of {org} went to the Experts' },
  'expert_queue.agent_failure': { label: 'Specialist reply failed', sentence: 'A Specialist could not answer in a conversation of {org}' },
};

/** "org.member.role_updated" -> "Org member role updated": an action the catalog above does not know yet. */
export function actionLabel(action: string): string {
  const known = AUDIT_ACTIONS[action]?.label;
  if (known) return known;
  const words = action.replace(/[._]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where a named record lives in the console. */
function hrefOf(id: string, ref: AuditRef): string | null {
  if (ref.kind === 'user') return `/ops/users/${id}`;
  if (ref.kind === 'org') return `/ops/clients/${id}`;
  if (ref.kind === 'assignment' && ref.orgId) return `/ops/clients/${ref.orgId}/specialists/${id}`;
  if (ref.kind === 'specialist') return `/ops/specialists?q=${encodeURIComponent(ref.name)}`;
  return null;
}

/** A name with its link, or what to say when the id names nothing any more. */
export function RefLink({ id, refs, missing }: { id: string | null | undefined; refs: AuditItem['refs']; missing: string }) {
  const ref = id ? refs[id] : undefined;
  if (!id || !ref) return <>{missing}</>;
  const href = hrefOf(id, ref);
  return href ? (
    <Anchor component={Link} to={href} title={ref.email}>
      {ref.name}
    </Anchor>
  ) : (
    <>{ref.name}</>
  );
}

/** The row as one sentence, its names linked. */
export function AuditSentence({ row }: { row: AuditItem }) {
  const template = AUDIT_ACTIONS[row.action]?.sentence ?? `${actionLabel(row.action)}${row.resourceId && row.refs[row.resourceId] ? ': {target}' : ''}, by {actor}`;
  const slots: Record<string, ReactNode> = {
    actor: <RefLink id={row.userId} refs={row.refs} missing={row.userId ? 'a removed user' : 'The system'} />,
    target: <RefLink id={row.resourceId} refs={row.refs} missing="a record that no longer exists" />,
    org: <RefLink id={row.orgId} refs={row.refs} missing="an organization" />,
    impersonator: <RefLink id={row.impersonatorId} refs={row.refs} missing="A SuperAdmin" />,
    expert: <RefLink id={typeof row.meta?.expertId === 'string' ? row.meta.expertId : null} refs={row.refs} missing="an Expert" />,
  };
  const parts = template.split(/(\{[a-z]+\})/);
  return (
    <Text size="sm" component="span">
      {parts.map((part, i) => {
        const slot = /^\{([a-z]+)\}$/.exec(part)?.[1];
        return <Fragment key={i}>{slot ? slots[slot] : part}</Fragment>;
      })}
      {row.impersonatorId && row.action !== 'impersonation.action' && (
        <>
          {' '}
          (done by <RefLink id={row.impersonatorId} refs={row.refs} missing="a SuperAdmin" /> while acting as them)
        </>
      )}
      .
    </Text>
  );
}

/** Payload keys shown elsewhere (the sentence) or meaningless to a reader. */
const HIDDEN = new Set(['actorId', 'targetUserId', 'expertId', 'impersonationId', 'sessionId', 'eventId', 'conversationId', 'invoiceId']);
const LABELS: Record<string, string> = {
  slug: 'Address name',
  email_alias: 'Email address',
  statusCode: 'Answer',
  secretNames: 'Secrets set',
  fields: 'Fields changed',
  specialistIds: 'Specialists',
  specialistId: 'Specialist',
  isPrimary: 'Primary',
  monthlyRate: 'Monthly rate',
  overrideReason: 'Reason for the rate',
  passwordChangedAt: 'Sessions',
  platformRole: 'Role',
  orgRole: 'Role in the organization',
  all: 'Everywhere',
  left: 'Recovery codes left',
  stoppedBy: 'Ended by',
};

/** "monthly_rate_config" / "statusCode" -> "Monthly rate config" / "Status code". */
export function fieldLabel(key: string): string {
  if (LABELS[key]) return LABELS[key]!;
  const words = key
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function plain(value: unknown, refs: AuditItem['refs']): ReactNode | null {
  if (value === null || value === undefined || value === '') return 'none';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return value.toLocaleString();
  if (typeof value === 'string') {
    if (UUID.test(value)) return refs[value] ? <RefLink id={value} refs={refs} missing="" /> : null;
    if (/^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))) return new Date(value).toLocaleString();
    return value;
  }
  if (Array.isArray(value)) {
    const items = value.map((v) => plain(v, refs)).filter((v) => v !== null);
    if (items.length === 0) return value.length === 0 ? 'none' : null;
    return items.map((item, i) => (
      <Fragment key={i}>
        {i > 0 && ', '}
        {item}
      </Fragment>
    ));
  }
  return null;
}

export interface DetailField {
  label: string;
  value: ReactNode;
}

/** The payload as labelled fields: a change as "before → after", ids as names, nothing unreadable. */
export function auditDetails(row: AuditItem): DetailField[] {
  const fields: DetailField[] = [];
  const add = (label: string, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const obj = value as Record<string, unknown>;
      if ('from' in obj || 'to' in obj) {
        const from = changeSide(obj.from, row.refs);
        const to = changeSide(obj.to, row.refs);
        if (from !== null || to !== null)
          fields.push({
            label,
            value: (
              <>
                {from ?? 'none'} → {to ?? 'none'}
              </>
            ),
          });
        return;
      }
      for (const [k, v] of Object.entries(obj)) if (!HIDDEN.has(k)) add(`${label} · ${fieldLabel(k)}`, v);
      return;
    }
    const shown = plain(value, row.refs);
    if (shown !== null) fields.push({ label, value: shown });
  };
  for (const [key, value] of Object.entries(row.meta ?? {})) {
    if (HIDDEN.has(key)) continue;
    if (key === 'changes' && value && typeof value === 'object') {
      for (const [field, change] of Object.entries(value as Record<string, unknown>)) add(fieldLabel(field), change);
      continue;
    }
    if (key === 'fields' && Array.isArray(value)) {
      fields.push({ label: fieldLabel(key), value: value.map((f) => fieldLabel(String(f === 'monthly_rate_config' ? 'catalogRate' : f))).join(', ') });
      continue;
    }
    add(fieldLabel(key), value);
  }
  return fields;
}

/** One side of a change: a plain value, or an object's readable fields on one line. */
function changeSide(value: unknown, refs: AuditItem['refs']): ReactNode | null {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const parts = Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
      const shown = plain(v, refs);
      return shown === null ? [] : [`${fieldLabel(k)}: ${typeof shown === 'string' ? shown : String(v)}`];
    });
    return parts.length > 0 ? parts.join(', ') : null;
  }
  return plain(value, refs);
}
