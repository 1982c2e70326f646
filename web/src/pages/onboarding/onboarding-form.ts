import { ORG_SLUG_PATTERN, PasswordSchema } from '@contracts';
import { z } from 'zod';
import { zodFieldErrors, type FieldErrors } from '../../ops/errors';
import type { CompleteOnboardingInput, OnboardingView } from '../../onboarding/onboarding.api';

/** The steps of spec 1 item 1, in order. */
export const ONBOARDING_STEPS = ['Workspace Setup', 'Your Team', 'Done'] as const;
export const WORKSPACE_STEP = 0;
export const TEAM_STEP = 1;
export const DONE_STEP = 2;

export interface OnboardingValues {
  legalName: string;
  slug: string;
  name: string;
  password: string;
  confirmPassword: string;
  specialistId: string;
}

/** The fields each step shows, for sending a server refusal back to its step. */
const STEP_FIELDS: Record<number, readonly string[]> = {
  [WORKSPACE_STEP]: ['legalName', 'slug'],
  [TEAM_STEP]: ['name', 'password', 'confirmPassword', 'specialistId'],
};

export function onboardingFormOf(view: OnboardingView): OnboardingValues {
  return { legalName: view.org.legalName, slug: view.org.slug, name: '', password: '', confirmPassword: '', specialistId: '' };
}

const WorkspaceSchema = z.object({
  legalName: z.string().trim().min(1, 'Required').max(200),
  slug: z.string().trim().toLowerCase().regex(ORG_SLUG_PATTERN, 'Use 3 to 63 lowercase letters, digits or inner hyphens'),
});

function teamSchema(needsPick: boolean) {
  return z
    .object({
      name: z.string().trim().min(1, 'Required').max(200),
      password: PasswordSchema,
      confirmPassword: z.string(),
      specialistId: needsPick ? z.string().min(1, 'Pick a Specialist') : z.string(),
    })
    .refine((v) => v.password === v.confirmPassword, { path: ['confirmPassword'], message: 'The passwords do not match' });
}

/** The problems of one step's fields, checked in the browser before moving on. */
export function validateStep(step: number, values: OnboardingValues, needsPick: boolean): FieldErrors {
  const parsed = step === WORKSPACE_STEP ? WorkspaceSchema.safeParse(values) : teamSchema(needsPick).safeParse(values);
  return parsed.success ? {} : zodFieldErrors(parsed.error);
}

/** The first step that shows one of `errors`, or null when none of them belongs to a field. */
export function stepOfErrors(errors: FieldErrors): number | null {
  for (const step of [WORKSPACE_STEP, TEAM_STEP]) {
    if (Object.keys(errors).some((field) => STEP_FIELDS[step]!.includes(field))) return step;
  }
  return null;
}

export function isShownField(field: string): boolean {
  return Object.values(STEP_FIELDS).some((fields) => fields.includes(field));
}

export function completePayloadOf(values: OnboardingValues, needsPick: boolean): CompleteOnboardingInput {
  return {
    legalName: values.legalName.trim(),
    slug: values.slug.trim().toLowerCase(),
    password: values.password,
    name: values.name.trim(),
    ...(needsPick && { specialistId: values.specialistId }),
  };
}

/** Words a client reads: the server's field name for the subdomain never reaches them. */
export function plainWords(message: string): string {
  return message.replace(/\bslug(s?)\b/gi, (_word, plural: string) => `subdomain${plural}`);
}

/** The server's field errors in the client's words. */
export function plainFieldErrors(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(errors).map(([field, message]) => [field, plainWords(message)]));
}
