import { Loader, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { typedSlug, type SlugAvailability } from '@contracts';
import { useQuery } from '@tanstack/react-query';
import { amApi, amKeys } from '../../../../ops/am.api';

const REASONS: Record<NonNullable<SlugAvailability['reason']>, string> = {
  invalid_format: 'Use 3 to 63 lowercase letters, digits or inner hyphens',
  reserved_word: 'This word is reserved',
  taken: 'This subdomain is taken',
};

/** The wizard's availability message, also shown to clients in Phase 2 (spec 2.1: the same messages). */
export function AvailabilityMessage({ result }: { result: SlugAvailability }) {
  const ok = result.valid && result.available;
  return (
    <Text size="sm" c={ok ? 'green' : 'red'} data-testid="slug-availability" data-valid={result.valid} data-available={result.available} data-reason={result.reason ?? ''}>
      {ok ? `“${result.slug}” is valid and available.` : `“${result.slug}” is not available: ${result.reason ? REASONS[result.reason] : 'unknown reason'}.`}
    </Text>
  );
}

/** The Subdomain (slug) field with a debounced real-time availability check (spec 2.1). */
export function SlugField({ value, onChange, orgId, disabled, error }: { value: string; onChange: (slug: string) => void; orgId?: string; disabled?: boolean; error?: string }) {
  const [debounced] = useDebouncedValue(value.trim(), 300);
  const check = useQuery({
    queryKey: amKeys.slug(debounced, orgId),
    queryFn: ({ signal }) => amApi.slugAvailability(debounced, orgId, signal),
    enabled: debounced !== '' && !disabled,
    staleTime: 5_000,
  });
  const settled = debounced === value.trim();

  return (
    <Stack gap={4}>
      <TextInput
        label="Subdomain"
        description={disabled ? 'Fixed once the client has confirmed' : 'Lowercase letters, digits and inner hyphens'}
        required
        value={value}
        disabled={disabled}
        onChange={(event) => onChange(typedSlug(event.currentTarget.value))}
        error={error}
        rightSection={check.isFetching || !settled ? <Loader size="xs" role="status" aria-label="Checking the subdomain" /> : undefined}
        autoComplete="off"
        spellCheck={false}
      />
      {!disabled && debounced !== '' && settled && check.data && <AvailabilityMessage result={check.data} />}
      {!disabled && check.error && (
        <Text size="sm" c="red" data-testid="slug-availability">
          Could not check the subdomain: {check.error.message}
        </Text>
      )}
    </Stack>
  );
}
