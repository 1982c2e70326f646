import emailProviders from 'email-providers/all.json' with { type: 'json' };
import { ORG_SLUG_PATTERN, type SlugAvailability } from '../../contracts/orgs.js';
import type { OrgRow, OrgStatus } from './orgs.tables.js';

/**
 * Slugs no org may take: they name our own pages, hosts and system words (a slug becomes a
 * subdomain and part of workspace addresses).
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'about',
  'account',
  'accounts',
  'admin',
  'administrator',
  'am',
  'api',
  'app',
  'apps',
  'assets',
  'auth',
  'billing',
  'blog',
  'cdn',
  'client',
  'clients',
  'contact',
  'dashboard',
  'dev',
  'docs',
  'email',
  'expert',
  'experts',
  'ftp',
  'health',
  'help',
  'imap',
  'internal',
  'legal',
  'login',
  'logout',
  'mail',
  'metrics',
  'null',
  'oauth',
  'onboarding',
  'ops',
  'platform',
  'pop',
  'portal',
  'privacy',
  'ready',
  'root',
  'security',
  'settings',
  'signup',
  'smtp',
  'socket',
  'specialist',
  'specialists',
  'sso',
  'staging',
  'static',
  'status',
  'superadmin',
  'support',
  'system',
  'terms',
  'test',
  'undefined',
  'webhook',
  'webhooks',
  'workspace',
  'www',
]);

/** Personal consumer-mail domains (a maintained list from npm: email-providers). */
const CONSUMER_MAIL_DOMAINS: ReadonlySet<string> = new Set(emailProviders as string[]);

export function isConsumerMailDomain(domain: string): boolean {
  return CONSUMER_MAIL_DOMAINS.has(domain.toLowerCase());
}

/** Format and reserved words; whether the slug is taken needs the database. */
export function slugFormatProblem(slug: string): SlugAvailability['reason'] {
  if (!ORG_SLUG_PATTERN.test(slug)) return 'invalid_format';
  if (RESERVED_SLUGS.has(slug)) return 'reserved_word';
  return null;
}

const TIMEZONES: ReadonlySet<string> = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']);
/** An IANA zone name: a canonical one, or a link ICU knows (America/Argentina/Buenos_Aires). */
export function isIanaTimezone(tz: string): boolean {
  if (TIMEZONES.has(tz)) return true;
  if (!/^[A-Za-z]+(\/[A-Za-z0-9_+-]+)+$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Today as YYYY-MM-DD in UTC. */
export function todayUtc(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** Spec 2.1 / 4.2 rule 4: a trial end date, when given, lies strictly in the future. */
export function trialDateOk(date: string | null | undefined, now: Date): boolean {
  return date == null || date > todayUtc(now);
}

/** While the client has not confirmed, the slug can still change (API-MAP.md). */
export function slugEditable(status: OrgStatus): boolean {
  return status === 'pending_am_setup' || status === 'pending_client_confirmation';
}

/**
 * Phase 0 gate (spec 4.2): rules 1, 2 and 4. A Specialist, Expert coverage or a trial date is
 * never required (rule 3).
 */
export function phase0Missing(org: OrgRow, assignedAmName: string | null | undefined, now: Date): string[] {
  const missing: string[] = [];
  if (!org.legalName.trim()) missing.push('legalName');
  if (!org.slug) missing.push('slug');
  if (!org.industry) missing.push('industry');
  if (org.corporateDomains.length === 0) missing.push('corporateDomains');
  if (!org.adminEmail) missing.push('adminEmail');
  if (!org.timezone) missing.push('timezone');
  if (!assignedAmName?.trim()) missing.push('amProfileName');
  if (!trialDateOk(org.trialEndDate, now)) missing.push('trialEndDate');
  return missing;
}

export const DEFAULT_TRIAL_DAYS = 30;

/** The trial end when the client confirms: none for trial mode none, else the AM's date or 30 days. */
export function trialEndOnConfirm(org: Pick<OrgRow, 'trialMode' | 'trialEndDate'>, now: Date): string | null {
  if (org.trialMode === 'none') return null;
  if (org.trialEndDate && org.trialEndDate > todayUtc(now)) return org.trialEndDate;
  return todayUtc(new Date(now.getTime() + DEFAULT_TRIAL_DAYS * 86_400_000));
}

/** An active org's trial is "ending" this many days before its end date (our choice; spec 3.2 leaves it open). */
export const TRIAL_ENDING_DAYS = 7;
/** A setup that nobody touched for this long is archived (spec 8: 90 days). */
export const STALE_ORG_DAYS = 90;
