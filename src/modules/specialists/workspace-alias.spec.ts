import { describe, expect, it } from 'vitest';
import { firstNameOf, previewWorkspaceAlias } from '../../contracts/orgs.js';
import { AppError } from '../../platform/errors/app-error.js';
import { generateWorkspaceAlias, normalizeFirstName, workspaceAliasCandidates } from './workspace-alias.js';

const D = 'workspace.example.com';
const first = (name: string, slug: string) => workspaceAliasCandidates(name, slug, D).next().value;

describe('workspace email alias (spec 2.3.1)', () => {
  it('normalizes the first name: NFKD, no diacritics, lowercase, [a-z] only', () => {
    expect(normalizeFirstName('José')).toBe('jose');
    expect(normalizeFirstName('Émilie')).toBe('emilie');
    expect(normalizeFirstName('Anne-Marie')).toBe('annemarie');
    expect(normalizeFirstName('Ｊｏｓé')).toBe('jose'); // full-width letters fold under NFKD
    expect(normalizeFirstName("O'Brien")).toBe('obrien');
    expect(normalizeFirstName('Zoë2')).toBe('zoe');
  });

  it('forms <firstname>.<org_slug>@<domain> from the first word of the name', () => {
    expect(first(firstNameOf('José Ramírez'), 'acme')).toBe('jose.acme@workspace.example.com');
    expect(first(firstNameOf('Anne-Marie Dubois'), 'acme')).toBe('annemarie.acme@workspace.example.com');
  });

  it('refuses an all-symbol first name and a malformed slug with a 400', () => {
    for (const [name, slug] of [
      ['!!!', 'acme'],
      ['李', 'acme'],
      ['', 'acme'],
      ['José', 'Bad_Slug'],
      ['José', 'a'],
      ['José', '-acme'],
    ]) {
      let err: unknown;
      try {
        first(name!, slug!);
      } catch (e) {
        err = e;
      }
      expect(err, `${name} / ${slug}`).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(400);
    }
  });

  it('keeps the slug part within 30 characters and drops a hyphen left by the cut', () => {
    const slug = 'abcdefghijklmnopqrstuvwxyz123-tail'; // the cut at 30 ends on the hyphen
    const address = first('Maya', slug)!;
    const [local] = address.split('@');
    expect(local).toBe('maya.abcdefghijklmnopqrstuvwxyz123');
    expect(local!.split('.')[1]!.length).toBeLessThanOrEqual(30);
  });

  it('keeps the local part within 64 characters, suffix included', () => {
    const longName = 'a'.repeat(80);
    const slug = 'b'.repeat(30);
    const it = workspaceAliasCandidates(longName, slug, D);
    const a1 = it.next().value!;
    const a2 = it.next().value!;
    const a10 = [...Array(8)].map(() => it.next().value!).at(-1)!;
    for (const a of [a1, a2, a10]) expect(a.split('@')[0]!.length).toBe(64);
    expect(a2.split('.')[0]!.endsWith('2')).toBe(true);
    expect(a10.split('.')[0]!.endsWith('10')).toBe(true);
  });

  it('gives the same Specialist distinct addresses on different orgs, and numbers collisions', async () => {
    expect(first('Maya', 'acme')).not.toBe(first('Maya', 'globex'));
    const taken = new Set(['maya.acme@workspace.example.com', 'maya2.acme@workspace.example.com']);
    expect(await generateWorkspaceAlias('Maya', 'acme', D, async (a) => taken.has(a))).toBe('maya3.acme@workspace.example.com');
  });

  it('previews on the client as rule 5 says: hyphen kept, null when a part is missing', () => {
    expect(previewWorkspaceAlias('Anne-Marie', 'acme', D)).toBe('anne-marie.acme@workspace.example.com');
    expect(previewWorkspaceAlias('', 'acme', D)).toBeNull();
    expect(previewWorkspaceAlias('Maya', null, D)).toBeNull();
  });
});
