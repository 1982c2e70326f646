import type { OsaDto } from '@contracts';

/** `{workspace_domain}` of spec 2.3.1 as the server configures it by default (WORKSPACE_DOMAIN). */
export const DEFAULT_WORKSPACE_DOMAIN = 'workspace.example.com';

/** The domain of the stored aliases when the org has any (they are authoritative), else the default. */
export function workspaceDomainOf(assignments: readonly Pick<OsaDto, 'email_alias'>[] | undefined): string {
  const alias = assignments?.find((a) => a.email_alias.includes('@'))?.email_alias;
  return alias ? alias.slice(alias.lastIndexOf('@') + 1) : DEFAULT_WORKSPACE_DOMAIN;
}
