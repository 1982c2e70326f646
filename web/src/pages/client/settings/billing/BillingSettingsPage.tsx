import { Alert, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import type { OrgBillingDto, OrgRole } from '@contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useCurrentUser } from '../../../../auth/current-user';
import { billingApi, billingKeys } from '../../../../billing/billing.api';
import { InvoiceList, PaymentStateBadge } from '../../../../billing/InvoiceList';
import { apiFieldErrors } from '../../../../ops/errors';
import { formatDate, formatDateTime } from '../../../../ops/format';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { toast } from '../../../../layout/toast';
import { BilledSpecialists } from './BilledSpecialists';

const PAYMENT_KIND_LABELS: Record<NonNullable<OrgBillingDto['paymentMethod']>['kind'], string> = { card: 'card', bank_transfer: 'bank transfer', invoice: 'pay by invoice' };

/** Spec 5.1: billing settings are for owners, admins and billing members. */
export const BILLING_ROLES: readonly OrgRole[] = ['owner', 'admin', 'billing'];

function DunningAlert({ billing }: { billing: OrgBillingDto }) {
  const { paymentState, graceEndsAt, lastFailureReason } = billing.dunning;
  if (paymentState === 'suspended' || billing.orgStatus === 'suspended') {
    return (
      <Alert color="red" title="Your organization is suspended" data-testid="dunning-alert">
        A payment failed and its grace period ended, so your team cannot use the service until it is paid. Settle the failed invoice below; access comes back as soon as the payment is recorded.
      </Alert>
    );
  }
  if (paymentState === 'past_due') {
    return (
      <Alert color="orange" title="A payment failed" data-testid="dunning-alert">
        {lastFailureReason ? `The provider said: ${lastFailureReason}. ` : ''}Access will be suspended on {formatDateTime(graceEndsAt)} unless the invoice is paid.
      </Alert>
    );
  }
  return null;
}

function BillingEmailForm({ orgId, billing }: { orgId: string; billing: OrgBillingDto }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState(billing.billingEmail ?? '');
  const save = useMutation({
    mutationFn: () => billingApi.updateEmail(orgId, { billingEmail: email.trim() === '' ? null : email.trim() }),
    onSuccess: (updated) => {
      queryClient.setQueryData(billingKeys.settings(orgId), updated);
      toast.success(updated.billingEmail ? `Invoices now go to ${updated.billingEmail}.` : 'The billing email was removed.', 'Billing email saved');
    },
  });
  const fieldError = apiFieldErrors(save.error).billingEmail;
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={onSubmit} aria-label="Billing email">
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label="Billing email"
          description="Invoices and payment notices go here."
          type="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          error={fieldError}
          style={{ flex: '1 1 240px', maxWidth: 360 }}
        />
        <Button type="submit" loading={save.isPending} disabled={email.trim() === (billing.billingEmail ?? '')}>
          Save
        </Button>
      </Group>
      {save.error && !fieldError && <QueryAlert title="Could not save the billing email" error={save.error} />}
    </form>
  );
}

function PaymentMethodCard({ orgId, billing }: { orgId: string; billing: OrgBillingDto }) {
  const navigate = useNavigate();
  const checkout = useMutation({
    mutationFn: () => billingApi.checkoutUrl(orgId),
    onSuccess: ({ url, provider }) => {
      // The default (manual) provider's setup page is a page of ours: stay in the app and its session.
      if (provider === 'manual') {
        const target = new URL(url, window.location.origin);
        void navigate(`${target.pathname}${target.search}`);
      } else {
        window.location.assign(url);
      }
    },
  });
  const method = billing.paymentMethod;
  return (
    <Card withBorder>
      <Group justify="space-between" wrap="wrap">
        <div>
          <Text fw={600}>Payment method</Text>
          <Text size="sm" c={method ? undefined : 'dimmed'} data-testid="payment-method">
            {method ? `${method.label} (${PAYMENT_KIND_LABELS[method.kind]}), added ${formatDate(method.addedAt)}` : 'No payment method on file.'}
          </Text>
        </div>
        <Button variant="light" onClick={() => checkout.mutate()} loading={checkout.isPending}>
          {method ? 'Change payment method' : 'Add payment method'}
        </Button>
      </Group>
      <QueryAlert title="Could not open the payment method page" error={checkout.error} />
    </Card>
  );
}

function Billing({ orgId }: { orgId: string }) {
  const settings = useQuery({ queryKey: billingKeys.settings(orgId), queryFn: ({ signal }) => billingApi.settings(orgId, signal) });
  const invoices = useQuery({ queryKey: billingKeys.invoices(orgId), queryFn: ({ signal }) => billingApi.invoices(orgId, signal) });
  if (settings.isPending) return <SectionLoader label="Loading billing" />;
  if (settings.error) return <QueryAlert title="Could not load billing" error={settings.error} retry={() => void settings.refetch()} />;
  const billing = settings.data;
  return (
    <Stack gap="lg">
      <DunningAlert billing={billing} />
      <Group gap="sm">
        <Text>Account status:</Text>
        <PaymentStateBadge state={billing.dunning.paymentState} />
      </Group>
      <BilledSpecialists billing={billing} />
      <BillingEmailForm orgId={orgId} billing={billing} />
      <PaymentMethodCard orgId={orgId} billing={billing} />
      <Stack gap="xs" component="section" aria-labelledby="billing-this-month">
        <Title order={2} size="h3" id="billing-this-month">
          This month
        </Title>
        <Text size="sm" c="dimmed" data-testid="billing-period">
          {formatDate(billing.currentPeriod.from)} to {formatDate(billing.currentPeriod.to)}: what you will be invoiced if nothing changes before the month ends.
        </Text>
        {billing.upcomingInvoices.length > 0 ? <InvoiceList invoices={billing.upcomingInvoices} audience="client" /> : <Text c="dimmed">Nothing is billed this month.</Text>}
      </Stack>
      <Stack gap="xs" component="section" aria-labelledby="billing-invoices">
        <Title order={2} size="h3" id="billing-invoices">
          Invoices
        </Title>
        {invoices.isPending ? (
          <SectionLoader label="Loading the invoices" />
        ) : invoices.error ? (
          <QueryAlert title="Could not load the invoices" error={invoices.error} />
        ) : (
          <InvoiceList invoices={invoices.data.items} audience="client" />
        )}
      </Stack>
    </Stack>
  );
}

/** `/client/settings/billing` (spec 4.1, 4.6): invoices with their lines, billing email, payment method. */
export function BillingSettingsPage() {
  const user = useCurrentUser();
  const membership = user.orgMemberships.find((m) => BILLING_ROLES.includes(m.orgRole));
  if (!membership) {
    return (
      <Alert color="blue" title="Only owners, admins and billing members see billing" data-testid="billing-not-allowed">
        Ask an owner or admin of your organization about invoices and payments.
      </Alert>
    );
  }
  return <Billing orgId={membership.orgId} />;
}
