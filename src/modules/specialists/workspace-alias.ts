import { ORG_SLUG_PATTERN } from '../../contracts/orgs.js';
import { AppError } from '../../platform/errors/app-error.js';

export const ALIAS_LOCAL_MAX = 64;
export const ALIAS_SLUG_MAX = 30;

/** Rule 1 of spec 2.3.1: NFKD, diacritics stripped, lowercase, `[a-z]` only. */
export function normalizeFirstName(firstName: string): string {
  return firstName
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
}

/** The slug part: at most 30 characters, without a trailing hyphen left by the cut (API-MAP.md). */
export function aliasSlugPart(orgSlug: string): string {
  return orgSlug.slice(0, ALIAS_SLUG_MAX).replace(/-+$/, '');
}

/**
 * The workspace addresses to try, in order (spec 2.3.1 and API-MAP.md): `<first>.<slug>@<domain>`,
 * then `<first>2.<slug>`, `<first>3.<slug>`, ...; the first-name part is cut so that the local
 * part never exceeds 64 characters. A first name that normalizes to nothing or a malformed slug
 * is a 400 (rule 3).
 */
export function* workspaceAliasCandidates(firstName: string, orgSlug: string, workspaceDomain: string): Generator<string> {
  const first = normalizeFirstName(firstName);
  if (!first) throw AppError.badRequest('Cannot generate a workspace alias: the first name has no letters a-z after normalization');
  if (!ORG_SLUG_PATTERN.test(orgSlug)) throw AppError.badRequest('Cannot generate a workspace alias: the org slug is malformed');
  const slug = aliasSlugPart(orgSlug);
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : String(n);
    const room = ALIAS_LOCAL_MAX - 1 - slug.length - suffix.length;
    yield `${first.slice(0, room)}${suffix}.${slug}@${workspaceDomain}`;
  }
}

/** The first free address; `isTaken` answers whether an address is already an OSA's alias. */
export async function generateWorkspaceAlias(firstName: string, orgSlug: string, workspaceDomain: string, isTaken: (address: string) => Promise<boolean>): Promise<string> {
  for (const address of workspaceAliasCandidates(firstName, orgSlug, workspaceDomain)) {
    if (!(await isTaken(address))) return address;
  }
  throw new Error('unreachable');
}
