import { CreateSpecialistSchema, MAX_CATALOG_RATE, UpdateSpecialistSchema, type SpecialistDto } from '@contracts';
import type { SpecialistInput } from '../../../admin/admin.api';
import { zodFieldErrors, type FieldErrors } from '../../../ops/errors';

/** What the catalog form holds: text as typed; the rate amount as a string so an empty box means "no catalog rate". */
export interface SpecialistDraft {
  name: string;
  slug: string;
  avatarUrl: string;
  routingEmail: string;
  skillTags: string[];
  persona: string;
  rateAmount: string;
  currency: string;
}

export const RATE_LIMITS_TEXT = `Leave empty for no catalog rate (then only an assignment's own rate is billed). From 0 to ${MAX_CATALOG_RATE.toLocaleString('en-US')}.`;

export function emptyDraft(): SpecialistDraft {
  return { name: '', slug: '', avatarUrl: '', routingEmail: '', skillTags: [], persona: '', rateAmount: '', currency: 'USD' };
}

export function draftOf(s: SpecialistDto): SpecialistDraft {
  return {
    name: s.name,
    slug: s.slug,
    avatarUrl: s.avatarUrl ?? '',
    routingEmail: s.routingEmail ?? '',
    skillTags: s.skillTags,
    persona: s.persona,
    rateAmount: s.monthly_rate_config ? String(s.monthly_rate_config.base_rate) : '',
    currency: s.monthly_rate_config?.currency ?? 'USD',
  };
}

/** "Doris Ng" -> "doris-ng": a first handle while the name is typed (the user may change it). */
export function handleFrom(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
}

type Body = Record<string, unknown>;

/** The request body of a draft: every field (create), empty optional fields as null. */
function bodyOf(d: SpecialistDraft): Body {
  const amount = d.rateAmount.trim();
  return {
    name: d.name,
    slug: d.slug,
    avatarUrl: d.avatarUrl.trim() || null,
    routingEmail: d.routingEmail.trim() || null,
    skillTags: d.skillTags,
    persona: d.persona,
    // A number the schema checks (NaN is refused with a message), never clamped here.
    monthly_rate_config: amount === '' ? null : { base_rate: Number(amount.replace(',', '.')), currency: d.currency.trim() },
  };
}

/** Why a form field is wrong, every field at once; the rate's two parts are reported on their own boxes. */
function errorsOf(error: Parameters<typeof zodFieldErrors>[0]): FieldErrors {
  const errors = zodFieldErrors(error);
  const rename: Record<string, string> = { 'monthly_rate_config.base_rate': 'rateAmount', 'monthly_rate_config.currency': 'currency' };
  for (const [from, to] of Object.entries(rename)) {
    if (errors[from]) {
      errors[to] = /expected number/i.test(errors[from]!) ? 'Enter a number, such as 990 or 990.50' : errors[from]!;
      delete errors[from];
    }
  }
  return errors;
}

export type Checked = { ok: true; body: SpecialistInput } | { ok: false; errors: FieldErrors };

/** A new Specialist: the whole body, checked with the API's own rules. */
export function checkCreate(d: SpecialistDraft): Checked {
  const parsed = CreateSpecialistSchema.safeParse(bodyOf(d));
  return parsed.success ? { ok: true, body: parsed.data } : { ok: false, errors: errorsOf(parsed.error) };
}

/** An edit: only the fields that differ from the saved Specialist; `{}` when nothing changed. */
export function checkUpdate(saved: SpecialistDto, d: SpecialistDraft): Checked {
  const full = CreateSpecialistSchema.safeParse(bodyOf(d));
  if (!full.success) return { ok: false, errors: errorsOf(full.error) };
  // A saved value the rules now refuse counts as changed, so the edit sends it corrected.
  const before = CreateSpecialistSchema.safeParse(bodyOf(draftOf(saved))).data ?? {};
  const changed: Body = {};
  for (const [key, value] of Object.entries(full.data)) {
    if (JSON.stringify(value) !== JSON.stringify((before as Body)[key])) changed[key] = value;
  }
  if (Object.keys(changed).length === 0) return { ok: true, body: {} };
  const parsed = UpdateSpecialistSchema.safeParse(changed);
  return parsed.success ? { ok: true, body: parsed.data } : { ok: false, errors: errorsOf(parsed.error) };
}
