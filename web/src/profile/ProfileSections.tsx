import { Stack } from '@mantine/core';
import { NameSection } from './NameSection';
import { PasswordSection } from './PasswordSection';
import { TwoFactorSection } from './TwoFactorSection';

/** The caller's own profile, the same for every role: name, password and two-factor sign-in. */
export function ProfileSections() {
  return (
    <Stack maw={720}>
      <NameSection />
      <PasswordSection />
      <TwoFactorSection />
    </Stack>
  );
}
