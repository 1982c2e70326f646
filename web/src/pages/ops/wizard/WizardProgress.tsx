import { Stepper } from '@mantine/core';
import { useNavigate } from 'react-router';
import { setupPath, WIZARD_STEPS, type WizardRoute } from './steps';

/** The 3-step progress of the wizard; once the org exists, a step can be opened by clicking it. */
export function WizardProgress({ current, orgId }: { current: WizardRoute; orgId?: string }) {
  const navigate = useNavigate();
  const active = WIZARD_STEPS.findIndex((step) => step.route === current);
  return (
    <nav aria-label="Wizard progress" data-testid="wizard-progress">
      <Stepper
        active={active}
        size="sm"
        allowNextStepsSelect={Boolean(orgId)}
        onStepClick={(index) => {
          if (orgId) void navigate(setupPath(orgId, WIZARD_STEPS[index]!.route));
        }}
      >
        {WIZARD_STEPS.map((step, index) => (
          <Stepper.Step
            key={step.route}
            label={step.label}
            description={`Step ${index + 1} of ${WIZARD_STEPS.length}`}
            data-testid="wizard-step"
            aria-current={index === active ? 'step' : undefined}
          />
        ))}
      </Stepper>
    </nav>
  );
}
