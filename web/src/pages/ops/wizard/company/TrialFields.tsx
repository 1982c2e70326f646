import type { TrialMode } from '@contracts';
import { Group, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { tomorrowIso } from './company-form';

/** Trial mode and the optional trial end date (strictly in the future; none with "No trial"). */
export function TrialFields({
  mode,
  endDate,
  onModeChange,
  onEndDateChange,
  errors,
}: {
  mode: TrialMode;
  endDate: string;
  onModeChange: (mode: TrialMode) => void;
  onEndDateChange: (date: string) => void;
  errors: { trialMode?: string; trialEndDate?: string };
}) {
  return (
    <Group align="flex-start" grow>
      <Stack gap={4}>
        <Text size="sm" fw={500} id="trial-mode-label">
          Trial mode
        </Text>
        <SegmentedControl
          aria-labelledby="trial-mode-label"
          value={mode}
          onChange={(value) => onModeChange(value as TrialMode)}
          data={[
            { value: 'default', label: 'Default trial' },
            { value: 'none', label: 'No trial' },
          ]}
        />
        <Text size="xs" c={errors.trialMode ? 'red' : 'dimmed'}>
          {errors.trialMode ?? 'The trial starts when the client confirms (30 days by default).'}
        </Text>
      </Stack>
      <TextInput
        type="date"
        label="Trial end date"
        description={mode === 'none' ? 'Not used without a trial' : 'Optional; must be in the future'}
        min={tomorrowIso()}
        value={mode === 'none' ? '' : endDate}
        disabled={mode === 'none'}
        onChange={(event) => onEndDateChange(event.currentTarget.value)}
        error={errors.trialEndDate}
      />
    </Group>
  );
}
