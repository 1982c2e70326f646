import { Select } from '@mantine/core';
import { INDUSTRIES } from '@contracts';
import { useQuery } from '@tanstack/react-query';
import { amApi, amKeys } from '../../../../ops/am.api';

/** The 13 industries, as the server lists them (the shared list until it answers). */
export function IndustrySelect({ value, onChange, error }: { value: string; onChange: (industry: string) => void; error?: string }) {
  const industries = useQuery({
    queryKey: amKeys.industries,
    queryFn: ({ signal }) => amApi.industries(signal),
    staleTime: Infinity,
    placeholderData: INDUSTRIES.map((i) => ({ value: i.value, label: i.label })),
  });
  return <Select label="Industry" required data={industries.data ?? []} value={value || null} onChange={(industry) => onChange(industry ?? '')} error={error} allowDeselect={false} />;
}
