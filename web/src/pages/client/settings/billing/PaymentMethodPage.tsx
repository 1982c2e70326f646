import { Button, Card, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import type { RecordPaymentMethodInput } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useCurrentUser } from '../../../../auth/current-user';
import { billingApi, billingKeys } from '../../../../billing/billing.api';
import { apiFieldErrors } from '../../../../ops/errors';
import { QueryAlert } from '../../../../ops/QueryAlert';
import { BILLING_ROLES } from './BillingSettingsPage';

const KINDS: Array<{ value: RecordPaymentMethodInput['kind']; label: string }> = [
  { value: 'bank_transfer', label: 'Bank transfer' },
  { value: 'invoice', label: 'Pay by invoice (cheque or manual)' },
  { value: 'card', label: 'Card (charged by our team)' },
];

/**
 * `/client/settings/billing/payment-method?orgId=`: the default (manual) provider's setup page,
 * where the checkout URL leads. It records how the org will pay; our team records each payment.
 */
export function PaymentMethodPage() {
  const user = useCurrentUser();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const orgId = params.get('orgId') ?? user.orgMemberships.find((m) => BILLING_ROLES.includes(m.orgRole))?.orgId ?? '';
  const [kind, setKind] = useState<RecordPaymentMethodInput['kind']>('bank_transfer');
  const [label, setLabel] = useState('');
  const save = useMutation({
    mutationFn: () => billingApi.recordPaymentMethod(orgId, { kind, label: label.trim() }),
    onSuccess: async (updated) => {
      queryClient.setQueryData(billingKeys.settings(orgId), updated);
      await navigate('/client/settings/billing');
    },
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const labelError = apiFieldErrors(save.error).label;
  return (
    <Card withBorder maw={560}>
      <form onSubmit={onSubmit} aria-label="Payment method">
        <Stack>
          <Title order={2} size="h3">
            Payment method
          </Title>
          <Text size="sm" c="dimmed">
            Invoices are issued monthly and paid by hand; tell us how you will pay. Our team records each payment.
          </Text>
          <Select label="How you pay" data={KINDS} value={kind} onChange={(v) => v && setKind(v as RecordPaymentMethodInput['kind'])} allowDeselect={false} />
          <TextInput
            label="Reference"
            description="For example the bank and account holder, or the card's last four digits."
            value={label}
            onChange={(e) => setLabel(e.currentTarget.value)}
            error={labelError}
            required
            maxLength={80}
          />
          {save.error && !labelError && <QueryAlert title="Could not save the payment method" error={save.error} />}
          <Group>
            <Button type="submit" loading={save.isPending} disabled={!orgId || label.trim() === ''}>
              Save payment method
            </Button>
            <Button component={Link} to="/client/settings/billing" variant="default">
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
