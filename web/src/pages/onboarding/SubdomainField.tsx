import { Loader, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { typedSlug } from '@contracts';
import { useQuery } from '@tanstack/react-query';
import { onboardingApi, onboardingKeys } from '../../onboarding/onboarding.api';
import { AvailabilityMessage } from '../ops/wizard/company/SlugField';
import { plainWords } from './onboarding-form';

/**
 * The subdomain the client confirms (spec 2.1), checked in real time as in the wizard's step 1:
 * debounced, with the wizard's messages, against the invite's own availability check.
 */
export function SubdomainField({ token, value, onChange, error }: { token: string; value: string; onChange: (value: string) => void; error?: string }) {
  const [debounced] = useDebouncedValue(value.trim(), 300);
  const check = useQuery({
    queryKey: onboardingKeys.subdomain(token, debounced),
    queryFn: ({ signal }) => onboardingApi.subdomainAvailability(token, debounced, signal),
    enabled: debounced !== '',
    staleTime: 5_000,
  });
  const settled = debounced === value.trim();

  return (
    <Stack gap={4}>
      <TextInput
        label="Subdomain"
        description="Lowercase letters, digits and inner hyphens; fixed once you confirm"
        required
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(event) => onChange(typedSlug(event.currentTarget.value))}
        error={error}
        rightSection={check.isFetching || !settled ? <Loader size="xs" aria-label="Checking the subdomain" /> : undefined}
      />
      {debounced !== '' && settled && check.data && <AvailabilityMessage result={check.data} />}
      {check.error && (
        <Text size="sm" c="red" data-testid="slug-availability">
          Could not check the subdomain: {plainWords(check.error.message)}
        </Text>
      )}
    </Stack>
  );
}
