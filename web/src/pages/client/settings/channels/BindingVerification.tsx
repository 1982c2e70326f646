import { Alert, Badge, Button, Code, CopyButton, Group, List, Stack, Text } from '@mantine/core';
import type { IntegrationDto, PlatformRole } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCurrentUser } from '../../../../auth/current-user';
import { PROOF_HINTS, type ChannelInfo } from '../../../../channels/channel-info';
import { channelKeys, channelsApi } from '../../../../channels/channels.api';

/** Who may verify a binding without the code (API-MAP.md "Channel bindings and vendor traffic"). */
const VERIFYING_ROLES: readonly PlatformRole[] = ['superadmin', 'account_manager'];

/**
 * A pending binding: its code, how to prove control of the source (send the code through the
 * channel, or ask the account manager), and for staff the Verify button.
 */
export function BindingVerification({ orgId, info, integration }: { orgId: string; info: ChannelInfo; integration: IntegrationDto }) {
  const user = useCurrentUser();
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: () => channelsApi.verify(orgId, integration.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: channelKeys.org(orgId) }),
  });
  if (integration.verificationStatus !== 'pending') return null;
  const code = integration.verificationCode;
  return (
    <Alert color="orange" title="Waiting for proof that this channel is yours" data-testid="binding-verification">
      <Stack gap="xs">
        <Text size="sm">Messages from this channel are held and get no answer until it is verified. Either way works:</Text>
        <List size="sm" spacing={4}>
          <List.Item>{PROOF_HINTS[info.channel]} That message only verifies; it gets no answer.</List.Item>
          <List.Item>Or ask your account manager to verify it.</List.Item>
        </List>
        {code && (
          <Group gap="xs" wrap="wrap">
            <Text size="sm" fw={500}>
              Verification code
            </Text>
            <Code fz="lg" data-testid="verification-code" style={{ letterSpacing: '0.1em' }}>
              {code}
            </Code>
            <CopyButton value={code}>
              {({ copied, copy }) => (
                <Button size="compact-sm" variant={copied ? 'filled' : 'default'} color={copied ? 'teal' : undefined} onClick={copy} data-testid="copy-verification-code">
                  {copied ? 'Copied' : 'Copy'}
                </Button>
              )}
            </CopyButton>
          </Group>
        )}
        {integration.pendingSources.length > 0 && (
          <Group gap={4} wrap="wrap" data-testid="pending-sources">
            <Text size="sm">Still waiting:</Text>
            {integration.pendingSources.map((source) => (
              <Badge key={source} variant="outline" color="orange" tt="none">
                {source}
              </Badge>
            ))}
          </Group>
        )}
        {VERIFYING_ROLES.includes(user.platformRole) && (
          <Group>
            <Button color="orange" onClick={() => verify.mutate()} loading={verify.isPending} data-testid="verify-binding">
              Verify
            </Button>
          </Group>
        )}
        {verify.error && (
          <Text c="red" size="sm" role="alert">
            {verify.error.message}
          </Text>
        )}
      </Stack>
    </Alert>
  );
}
