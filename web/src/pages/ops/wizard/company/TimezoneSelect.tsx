import { Select } from '@mantine/core';
import { useMemo } from 'react';

function ianaTimezones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}

/** Country / timezone: one of the IANA zones the browser knows (spec 2.1). */
export function TimezoneSelect({ value, onChange, error }: { value: string; onChange: (tz: string) => void; error?: string }) {
  const data = useMemo(() => {
    const zones = ianaTimezones();
    return value && !zones.includes(value) ? [value, ...zones] : zones;
  }, [value]);
  return (
    <Select label="Country / timezone" required searchable limit={50} data={data} value={value || null} onChange={(tz) => onChange(tz ?? '')} error={error} nothingFoundMessage="No such timezone" />
  );
}
