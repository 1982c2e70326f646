import type { OrgDto, SpecialistDto } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { amApi, amKeys } from '../../../../ops/am.api';
import { toast } from '../../../../layout/toast';
import { apiFieldErrors, type FieldErrors } from '../../../../ops/errors';
import { isPendingStatus } from '../../../../ops/org-status';
import { orgLogoApi } from '../../../../orgs/logo.api';
import { setupPath } from '../steps';
import { createPayloadOf, updatePayloadOf, validateCompanyForm, type CompanyFormValues } from './company-form';

/** An error that belongs to one field (the AM profile name is saved through its own endpoint). */
class FieldSaveError extends Error {
  readonly field: string;

  constructor(field: string, cause: unknown) {
    super(cause instanceof Error ? cause.message : 'Could not save');
    this.field = field;
  }
}

export interface SaveCompanyInput {
  values: CompanyFormValues;
  /** The AM profile name to save first, when the profile has none. */
  profileName?: string;
  /**
   * The launch link's catalog Specialist (`?specialist=<slug>`, spec 4.1): once the org exists, the
   * Specialist step opens with it preselected, where the AM may set a rate override before assigning.
   */
  preassign?: { slug: string; specialist: SpecialistDto | undefined };
  /** A new org's logo, chosen before the org existed: uploaded right after the create. */
  logo?: File | null;
}

/**
 * Step 1's submit: validate with the shared schema, save the AM profile name if asked, create or
 * re-edit the org, then continue: step-2 with the launch link's Specialist preselected, else step-3
 * (an active org goes back to its overview).
 */
export function useSaveCompany(org: OrgDto | undefined) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});

  const mutation = useMutation({
    mutationFn: async ({ values, profileName, preassign, logo }: SaveCompanyInput) => {
      if (profileName !== undefined) {
        await amApi.updateProfile({ name: profileName.trim() }).catch((err: unknown) => {
          throw new FieldSaveError('amProfileName', err);
        });
        await queryClient.invalidateQueries({ queryKey: amKeys.profile });
      }
      if (org) {
        const body = updatePayloadOf(values, org);
        const saved = Object.keys(body).length > 0 ? await amApi.updateOrg(org.id, body) : org;
        return { org: saved, preassignError: null, preassignSlug: null, logoError: null };
      }
      let created = await amApi.createOrg(createPayloadOf(values));
      let logoError: string | null = null;
      // The org exists now whatever happens to its logo: a refused upload is retried on its re-edit page.
      if (logo) {
        try {
          created = await orgLogoApi.upload(created.id, logo);
        } catch (err) {
          logoError = err instanceof Error ? err.message : 'The upload failed.';
        }
      }
      const preassignError = preassign && !preassign.specialist ? `No Specialist “${preassign.slug}” in the pool.` : null;
      return { org: created, preassignError, preassignSlug: preassign?.slug ?? null, logoError };
    },
    onSuccess: async ({ org: saved, preassignError, preassignSlug, logoError }) => {
      queryClient.setQueryData(amKeys.orgRecord(saved.id), saved);
      toast.success(org ? `The company info of ${saved.legalName} is saved.` : `${saved.legalName} is created.`);
      await Promise.all([queryClient.invalidateQueries({ queryKey: amKeys.org(saved.id) }), queryClient.invalidateQueries({ queryKey: amKeys.orgLists })]);
      if (logoError !== null) {
        await navigate(setupPath(saved.id, 'step-1'), { state: { logoError } });
      } else if (preassignSlug !== null) {
        // The org exists: the Specialist step opens with the launch link's Specialist preselected.
        await navigate(`${setupPath(saved.id, 'step-2')}?specialist=${encodeURIComponent(preassignSlug)}`, { state: preassignError ? { preassignError } : null });
      } else if (org && !isPendingStatus(org.status)) {
        await navigate(`/ops/clients/${saved.id}`);
      } else {
        await navigate(setupPath(saved.id, 'step-3'));
      }
    },
    onError: (error) => {
      if (error instanceof FieldSaveError) setFieldErrors({ [error.field]: error.message });
      else setFieldErrors(apiFieldErrors(error));
    },
  });

  /** Validates first; nothing is sent while the form has errors. */
  const submit = (input: SaveCompanyInput) => {
    const errors = validateCompanyForm(input.values);
    if (input.profileName !== undefined && input.profileName.trim() === '') errors.amProfileName = 'Required: the Phase 0 gate needs your name';
    setFieldErrors(errors);
    mutation.reset();
    if (Object.keys(errors).length === 0) mutation.mutate(input);
  };

  const formError = mutation.error instanceof FieldSaveError ? null : mutation.error;
  return { submit, fieldErrors, formError, isPending: mutation.isPending };
}
