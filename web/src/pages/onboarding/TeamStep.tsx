import { Button, Group, SimpleGrid, Stack, TextInput, Title } from '@mantine/core';
import type { FormEvent } from 'react';
import type { FieldErrors } from '../../ops/errors';
import type { OnboardingView } from '../../onboarding/onboarding.api';
import type { OnboardingValues } from './onboarding-form';
import { SpecialistChoice } from './SpecialistChoice';
import { PasswordField } from '../../forms/PasswordField';

/** Your Team: the admin's profile and password, and their Specialist (picked unless preassigned). */
export function TeamStep({
  token,
  view,
  values,
  errors,
  submitting,
  onChange,
  onBack,
  onFinish,
}: {
  token: string;
  view: OnboardingView;
  values: OnboardingValues;
  errors: FieldErrors;
  submitting: boolean;
  onChange: (patch: Partial<OnboardingValues>) => void;
  onBack: () => void;
  onFinish: () => void;
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onFinish();
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Your profile and Specialist">
      <Stack>
        <Title order={2} size="h4">
          Your profile
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Your name" required autoComplete="name" value={values.name} onChange={(event) => onChange({ name: event.currentTarget.value })} error={errors.name} />
          <TextInput label="Email" value={view.adminEmail} readOnly autoComplete="username" description="You sign in with this address" />
          <PasswordField
            label="Password"
            description="At least 8 characters"
            required
            autoComplete="new-password"
            value={values.password}
            onChange={(event) => onChange({ password: event.currentTarget.value })}
            error={errors.password}
          />
          <PasswordField
            label="Confirm password"
            required
            autoComplete="new-password"
            value={values.confirmPassword}
            onChange={(event) => onChange({ confirmPassword: event.currentTarget.value })}
            error={errors.confirmPassword}
          />
        </SimpleGrid>
        <Title order={2} size="h4">
          Your Specialist
        </Title>
        <SpecialistChoice token={token} preassigned={view.specialistPreassigned} value={values.specialistId} onChange={(specialistId) => onChange({ specialistId })} error={errors.specialistId} />
        <Group justify="space-between">
          <Button variant="default" onClick={onBack} disabled={submitting}>
            Back
          </Button>
          <Button type="submit" loading={submitting}>
            Finish setup
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
