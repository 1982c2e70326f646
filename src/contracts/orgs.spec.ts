import { describe, expect, it } from 'vitest';
import { OrgSlugSchema, firstNameOf, previewWorkspaceAlias, typedSlug } from './orgs.js';

describe('typedSlug: what the Subdomain fields (wizard and Phase 2) keep as the user types', () => {
  it('lowercases as typed, so a slug typed in capitals is the valid one', () => {
    expect(typedSlug('Acme-Co')).toBe('acme-co');
    expect(typedSlug('GLOBEX')).toBe('globex');
    expect(OrgSlugSchema.safeParse(typedSlug('Acme-Co')).success).toBe(true);
  });

  it('changes nothing else: what is outside the pattern stays visible and is refused, never silently fixed', () => {
    for (const typed of ['acme co', 'acme_co', '-acme', 'acme-', 'ac', 'äcme']) {
      expect(typedSlug(typed)).toBe(typed.toLowerCase());
      expect(OrgSlugSchema.safeParse(typedSlug(typed)).success, typed).toBe(false);
    }
  });
});

describe('previewWorkspaceAlias (spec 2.3.1 rule 5)', () => {
  it('uses the workspace domain it is given, not a built-in one', () => {
    expect(previewWorkspaceAlias(firstNameOf('Emilie Laurent'), 'globex', 'mail.preview-test.example.net')).toBe('emilie.globex@mail.preview-test.example.net');
    expect(previewWorkspaceAlias('Emilie', 'globex', 'workspace.example.org')).toBe('emilie.globex@workspace.example.org');
  });

  it('is hidden (null) until both the first name and the slug are known', () => {
    expect(previewWorkspaceAlias('', 'globex', 'x.example')).toBeNull();
    expect(previewWorkspaceAlias('Emilie', undefined, 'x.example')).toBeNull();
    expect(previewWorkspaceAlias(null, null, 'x.example')).toBeNull();
  });
});
