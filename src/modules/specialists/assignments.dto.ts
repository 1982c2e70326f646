import type { OsaDto } from '../../contracts/assignments.js';
import { systemNow } from '../../platform/clock/clock.js';
import type { OsaWithSpecialist } from './assignments.repository.js';
import { mailboxBadge } from './mailbox.lifecycle.js';
import { DEFAULT_CURRENCY, resolveRate } from './rates.js';

const today = () => systemNow().toISOString().slice(0, 10);

export function toOsaDto(a: OsaWithSpecialist): OsaDto {
  const catalog = a.specialist.monthlyRateConfig;
  const rate = resolveRate(a, catalog, today());
  return {
    id: a.id,
    assignmentId: a.id,
    orgId: a.orgId,
    specialistId: a.specialistId,
    isPrimary: a.isPrimary,
    monthlyRate: a.monthlyRate,
    overrideReason: a.overrideReason,
    monthly_rate_config: {
      base_rate: rate?.amount ?? null,
      currency: rate?.currency ?? catalog?.currency ?? DEFAULT_CURRENCY,
      rate_effective_from: a.rateEffectiveFrom,
      rate_effective_until: a.rateEffectiveUntil,
    },
    rate,
    email_alias: a.emailAlias,
    mailboxUserId: a.mailboxUserId,
    mailboxProvisionedAt: a.mailboxProvisionedAt?.toISOString() ?? null,
    mailboxSuspendedAt: a.mailboxSuspendedAt?.toISOString() ?? null,
    mailboxArchivedAt: a.mailboxArchivedAt?.toISOString() ?? null,
    mailboxStatus: mailboxBadge(a, a.mailboxRequestedAt !== null),
    specialist: {
      id: a.specialist.id,
      name: a.specialist.name,
      slug: a.specialist.slug,
      avatarUrl: a.specialist.avatarUrl,
      routingEmail: a.specialist.routingEmail,
      skillTags: a.specialist.skillTags,
      monthly_rate_config: catalog ? { base_rate: catalog.base_rate, currency: catalog.currency } : null,
    },
    createdAt: a.createdAt.toISOString(),
  };
}
