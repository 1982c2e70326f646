import type { OrgDto } from '@contracts';
import { Alert, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { amApi, amKeys } from '../../../../ops/am.api';
import { apiFieldErrors, unshownErrorMessage } from '../../../../ops/errors';
import { formatDateTime } from '../../../../ops/format';
import { useInvalidateOrg } from '../../../../ops/queries';
import { tomorrowIso } from '../company/company-form';
import { SetupActionError } from './SetupActionError';

const DATE_FIELDS = ['trialEndDate', 'startDate'];

/** A date field's value to send: only when the AM changed it (an unchanged one stays as saved). */
const changed = (value: string, saved: string | null): string | undefined => (value !== '' && value !== (saved ?? '') ? value : undefined);

/**
 * sendOrgInvite(orgId, trialEndDate?, startDate?): the org waits for the client, the admin gets
 * the invite with a 7-day link. While the client has not confirmed, the same button resends it:
 * a new 7-day window, the same link.
 */
export function InviteCard({ org, ready }: { org: OrgDto; ready: boolean }) {
  const queryClient = useQueryClient();
  const invalidateOrg = useInvalidateOrg();
  const [trialEndDate, setTrialEndDate] = useState(org.trialEndDate ?? '');
  const [startDate, setStartDate] = useState(org.startDate ?? '');
  const resend = org.status === 'pending_client_confirmation';

  const send = useMutation({
    // The variable says whether this send was a resend, for the confirmation once the status moved on.
    mutationFn: (_asResend: boolean) =>
      amApi.sendInvite(org.id, {
        trialEndDate: org.trialMode === 'none' ? undefined : changed(trialEndDate, org.trialEndDate),
        startDate: changed(startDate, org.startDate),
      }),
    onSuccess: async (result) => {
      queryClient.setQueryData(amKeys.orgRecord(org.id), result.org);
      queryClient.setQueryData(amKeys.onboardingLink(org.id), { onboardingUrl: result.onboardingUrl, expiresAt: result.expiresAt });
      await invalidateOrg(org.id);
    },
  });
  const fieldErrors = apiFieldErrors(send.error);
  const errorMessage = unshownErrorMessage(send.error, fieldErrors, (field) => DATE_FIELDS.includes(field));

  return (
    <Card withBorder component="section" aria-label="Client invite" data-testid="invite-card" data-sent={resend}>
      <Title order={2} size="h4" mb="sm">
        {resend ? 'Invite sent' : 'Send the client invite'}
      </Title>
      <Stack gap="sm">
        <Text size="sm">
          {resend
            ? 'The client has not confirmed yet. Resending mails the invite again and gives the link a new 7-day window; the link stays the same. After a change of the admin email the old link no longer opens: resend to mail the new address its own.'
            : 'The invite goes to the admin email with a link valid for 7 days. The client confirms the company info, sets a password and meets their Specialist.'}
        </Text>
        <Text size="sm">
          Recipient: <strong data-testid="invite-recipient">{org.adminEmail}</strong>
        </Text>
        <Group grow align="flex-start">
          <TextInput
            type="date"
            label="Trial end date"
            description={org.trialMode === 'none' ? 'This org has no trial' : 'Optional; 30 days from confirmation when empty'}
            min={tomorrowIso()}
            value={org.trialMode === 'none' ? '' : trialEndDate}
            disabled={org.trialMode === 'none'}
            onChange={(event) => setTrialEndDate(event.currentTarget.value)}
            error={fieldErrors.trialEndDate}
          />
          <TextInput
            type="date"
            label="Start date"
            description="Optional; when billing may start"
            value={startDate}
            onChange={(event) => setStartDate(event.currentTarget.value)}
            error={fieldErrors.startDate}
          />
        </Group>
        <Group>
          <Button onClick={() => send.mutate(resend)} loading={send.isPending} disabled={!ready} data-testid="send-invite">
            {resend ? 'Resend invite' : 'Send invite'}
          </Button>
          {!ready && (
            <Text size="sm" c="dimmed">
              Complete the missing items first.
            </Text>
          )}
        </Group>
        {send.data && (
          <Alert color="green" title={send.variables ? 'Invite sent again' : 'Invite sent'} data-testid="invite-sent">
            Sent to {send.data.org.adminEmail}. The link expires {formatDateTime(send.data.expiresAt)}.
          </Alert>
        )}
        <SetupActionError title="Could not send the invite" error={send.error} message={errorMessage} />
      </Stack>
    </Card>
  );
}
