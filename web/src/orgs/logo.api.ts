import type { OrgDto } from '@contracts';
import { useQuery } from '@tanstack/react-query';
import { apiFetch, apiResponse } from '../api/client';

const orgPath = (orgId: string) => `/orgs/${encodeURIComponent(orgId)}`;
const logoPath = (orgId: string) => `${orgPath(orgId)}/logo`;

/** The org record as its members read it (GET /orgs/:orgId): the client's header and settings. */
export const orgRecordKey = (orgId: string) => ['orgs', orgId] as const;
export function useOrgRecord(orgId: string | undefined) {
  return useQuery({
    queryKey: orgRecordKey(orgId ?? ''),
    queryFn: ({ signal }) => apiFetch<OrgDto>(orgPath(orgId!), { signal }),
    enabled: Boolean(orgId),
    retry: false,
  });
}

/** The org logo (spec 2.1): uploaded as a file, removed; both answer the org with its new `logoUrl`. */
export const orgLogoApi = {
  upload: (orgId: string, file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    return apiFetch<OrgDto>(logoPath(orgId), { method: 'PUT', form });
  },
  remove: (orgId: string) => apiFetch<OrgDto>(logoPath(orgId), { method: 'DELETE' }),
};

/** A file's bytes as a `data:` address (what the page's Content-Security-Policy lets an <img> show). */
export function dataUrlOf(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error ?? new Error('Could not read the file'));
    reader.readAsDataURL(blob);
  });
}

/**
 * The image an org record's `logoUrl` names, read with the session's token (an <img> alone would
 * send none). The address carries the logo's version, so one read per version is enough.
 */
export function useLogoImage(logoUrl: string | null | undefined) {
  return useQuery({
    queryKey: ['org-logo', logoUrl],
    queryFn: async ({ signal }) => dataUrlOf(await (await apiResponse(logoUrl!.replace(/^\/api/, ''), { signal, headers: { Accept: 'image/*' } })).blob()),
    enabled: Boolean(logoUrl),
    staleTime: Infinity,
    retry: false,
  });
}
