/**
 * The linear wizard of spec 1 item 1: 3 steps. Their routes keep the old names (spec 9.6): step-2,
 * Specialist assignment, is outside the linear flow. The step-count test fixture
 * (test/browser/am-wizard.browser.spec.ts) must change together with this list (spec 4.1).
 */
export const WIZARD_STEPS = [
  { route: 'step-1', label: 'Company info' },
  { route: 'step-3', label: 'Expert assignment' },
  { route: 'step-4', label: 'Client invite' },
] as const;

export type WizardRoute = (typeof WIZARD_STEPS)[number]['route'];

/** The route of the Specialist step, outside the linear flow. */
export const SPECIALIST_STEP_ROUTE = 'step-2';

export function setupPath(orgId: string, route: WizardRoute | typeof SPECIALIST_STEP_ROUTE): string {
  return `/ops/clients/${orgId}/setup/${route}`;
}
