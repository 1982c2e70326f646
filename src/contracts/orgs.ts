/** Org slug (spec 2.1): 3 to 63 characters, lowercase letters, digits and inner hyphens. */
export const ORG_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/** The first word of a Specialist's name: what the workspace alias is made from. */
export function firstNameOf(name: string): string {
  return name.trim().split(/\s+/)[0] ?? '';
}

/**
 * The wizard's preview of a workspace address (spec 2.3.1 rule 5): no server call, lowercase,
 * `[a-z0-9-]` kept, so it can differ from the stored alias (a hyphen previews but is not stored).
 * Null when the first name or the slug is missing: the line is then hidden.
 */
export function previewWorkspaceAlias(firstName: string | null | undefined, orgSlug: string | null | undefined, workspaceDomain: string): string | null {
  const first = (firstName ?? '').toLowerCase().replace(/[^a-z0-9-]/g, '');
  const slug = (orgSlug ?? '').toLowerCase().replace(/[^a-z0-9-]/g, '');
  if (!first || !slug) return null;
  return `${first}.${slug}@${workspaceDomain}`;
}
