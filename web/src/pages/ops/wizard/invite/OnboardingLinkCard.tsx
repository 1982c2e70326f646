import { Button, Card, CopyButton, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { amApi, amKeys } from '../../../../ops/am.api';
import { formatDateTime } from '../../../../ops/format';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';

function ExpiryNote({ expiresAt }: { expiresAt: string | null }) {
  const expired = expiresAt !== null && Date.parse(expiresAt) <= Date.now();
  const text =
    expiresAt === null
      ? 'Not sent yet: the link opens once the invite is sent.'
      : expired
        ? `Expired ${formatDateTime(expiresAt)}. Resend the invite to open it again.`
        : `Expires ${formatDateTime(expiresAt)}.`;
  return (
    <Text size="sm" c={expired ? 'red' : 'dimmed'} data-testid="onboarding-link-expiry" data-sent={expiresAt !== null} data-expired={expired}>
      {text}
    </Text>
  );
}

/** The onboarding link, to copy before and after the invite is sent (spec 4.2 rule 5). */
export function OnboardingLinkCard({ orgId }: { orgId: string }) {
  const link = useQuery({ queryKey: amKeys.onboardingLink(orgId), queryFn: ({ signal }) => amApi.onboardingLink(orgId, signal) });

  return (
    <Card withBorder component="section" aria-label="Onboarding link">
      <Title order={2} size="h4" mb="sm">
        Onboarding link
      </Title>
      {link.isPending && <SectionLoader label="Loading the onboarding link" />}
      <QueryAlert title="Could not load the onboarding link" error={link.error} retry={() => void link.refetch()} />
      {link.data && (
        <Stack gap="xs">
          <Group align="flex-end" wrap="nowrap">
            <TextInput label="Link for the client" readOnly value={link.data.onboardingUrl} onFocus={(event) => event.currentTarget.select()} data-testid="onboarding-link" style={{ flex: 1 }} />
            <CopyButton value={link.data.onboardingUrl}>
              {({ copied, copy }) => (
                <Button variant={copied ? 'filled' : 'default'} color={copied ? 'teal' : undefined} onClick={copy} data-testid="copy-onboarding-link">
                  {copied ? 'Copied' : 'Copy link'}
                </Button>
              )}
            </CopyButton>
          </Group>
          <ExpiryNote expiresAt={link.data.expiresAt} />
        </Stack>
      )}
    </Card>
  );
}
