import { List, Text } from '@mantine/core';
import type { OsaDto, SavePlan } from '@contracts';
import { ConfirmDialog } from '../../../../layout/ConfirmDialog';
import { formatMoney, formatRate } from '../../../../ops/format';
import { unassignConsequence } from '../../../../ops/unassign';

/** What the Specialist step's save will stop or charge differently, for the AM to confirm. */
export function ConfirmPlanDialog({
  plan,
  assignments,
  nameOf,
  loading,
  onConfirm,
  onCancel,
}: {
  plan: SavePlan | null;
  assignments: OsaDto[];
  nameOf: (specialistId: string) => string;
  loading: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const bySpecialist = new Map(assignments.map((a) => [a.specialistId, a]));
  const unassigning = plan?.unassign.length ?? 0;
  const title =
    unassigning > 0
      ? plan!.update.length > 0
        ? 'Unassign Specialists and change rates?'
        : unassigning === 1
          ? `Unassign ${nameOf(plan!.unassign[0]!.specialistId)}?`
          : `Unassign ${unassigning} Specialists?`
      : 'Change the monthly rate?';
  return (
    <ConfirmDialog
      opened={plan !== null}
      title={title}
      confirmLabel={unassigning > 0 ? 'Unassign and save' : 'Change rate and save'}
      color={unassigning > 0 ? 'red' : 'blue'}
      loading={loading}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <List size="sm" spacing="xs" data-testid="confirm-plan">
        {plan?.unassign.map(({ specialistId }) => {
          const osa = bySpecialist.get(specialistId);
          return (
            <List.Item key={`u-${specialistId}`}>
              <Text span fw={600} size="sm">
                Unassign {nameOf(specialistId)}:
              </Text>{' '}
              {osa ? unassignConsequence(osa) : 'the Specialist stops working for this org.'}
            </List.Item>
          );
        })}
        {plan?.update.map(({ specialistId, body }) => {
          const osa = bySpecialist.get(specialistId);
          const currency = osa?.monthly_rate_config.currency ?? 'USD';
          const next = body.monthlyRate == null ? 'the catalog rate' : `${formatMoney(body.monthlyRate, currency)} / month`;
          return (
            <List.Item key={`r-${specialistId}`}>
              <Text span fw={600} size="sm">
                {nameOf(specialistId)}:
              </Text>{' '}
              from {osa ? formatRate(osa.rate) : 'its current rate'} to {next}. The client is billed the new rate from today, prorated by the day.
            </List.Item>
          );
        })}
      </List>
    </ConfirmDialog>
  );
}
