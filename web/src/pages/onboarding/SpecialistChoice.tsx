import { Avatar, Badge, Card, Group, Radio, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { onboardingApi, onboardingKeys, type SpecialistPreview } from '../../onboarding/onboarding.api';
import { formatMoney } from '../../ops/format';
import { QueryAlert, SectionLoader } from '../../ops/QueryAlert';

/** The monthly fee of a Specialist as the client sees it (usage is never billed, spec 1 item 5). */
function rateText(rate: SpecialistPreview['monthlyRate']): string {
  if (!rate) return 'No monthly fee set';
  return `${formatMoney(rate.amount, rate.currency)} / month${rate.source === 'override' ? ' (your agreed rate)' : ''}`;
}

function SpecialistSummary({ specialist }: { specialist: SpecialistPreview }) {
  return (
    <Group wrap="nowrap" align="flex-start">
      <Avatar src={specialist.avatarUrl} alt="" name={specialist.name} color="initials" />
      <Stack gap={4}>
        <Text fw={600}>{specialist.name}</Text>
        {specialist.skillTags.length > 0 && (
          <Group gap={4}>
            {specialist.skillTags.map((tag) => (
              <Badge key={tag} variant="light" size="sm">
                {tag}
              </Badge>
            ))}
          </Group>
        )}
        <Text size="sm" c="dimmed" data-testid="specialist-rate">
          {rateText(specialist.monthlyRate)}
        </Text>
      </Stack>
    </Group>
  );
}

/** The Specialist the account manager preassigned: shown, not picked (the selection is skipped). */
function PreassignedSpecialist({ token }: { token: string }) {
  const specialist = useQuery({ queryKey: onboardingKeys.preassigned(token), queryFn: ({ signal }) => onboardingApi.preassignedSpecialist(token, signal) });
  if (specialist.isPending) return <SectionLoader label="Loading your Specialist" />;
  if (specialist.error) return <QueryAlert title="Could not load your Specialist" error={specialist.error} retry={() => void specialist.refetch()} />;
  return (
    <Card withBorder data-testid="preassigned-specialist" data-specialist-slug={specialist.data.slug}>
      <Text size="sm" c="dimmed" mb="xs">
        Your account manager has chosen your Specialist:
      </Text>
      <SpecialistSummary specialist={specialist.data} />
    </Card>
  );
}

/** The pool to pick one Specialist from. */
function SpecialistPicker({ token, value, onChange, error }: { token: string; value: string; onChange: (id: string) => void; error?: string }) {
  const pool = useQuery({ queryKey: onboardingKeys.specialists(token), queryFn: ({ signal }) => onboardingApi.specialists(token, signal) });
  if (pool.isPending) return <SectionLoader label="Loading the Specialists" />;
  if (pool.error) return <QueryAlert title="Could not load the Specialists" error={pool.error} retry={() => void pool.refetch()} />;
  return (
    <Radio.Group value={value || null} onChange={onChange} label="Pick your Specialist" required error={error}>
      <Stack gap="xs" mt="xs">
        {pool.data.length === 0 && <Text c="dimmed">No Specialist is available yet; contact your account manager.</Text>}
        {pool.data.map((specialist) => (
          <Radio.Card key={specialist.id} value={specialist.id} p="sm" data-testid="specialist-choice" data-specialist-slug={specialist.slug} aria-label={specialist.name}>
            <Group wrap="nowrap" align="flex-start">
              <Radio.Indicator mt={4} />
              <SpecialistSummary specialist={specialist} />
            </Group>
          </Radio.Card>
        ))}
      </Stack>
    </Radio.Group>
  );
}

/** The Specialist part of Your Team: preassigned (shown) or picked from the pool. */
export function SpecialistChoice({ token, preassigned, value, onChange, error }: { token: string; preassigned: boolean; value: string; onChange: (id: string) => void; error?: string }) {
  return preassigned ? <PreassignedSpecialist token={token} /> : <SpecialistPicker token={token} value={value} onChange={onChange} error={error} />;
}
