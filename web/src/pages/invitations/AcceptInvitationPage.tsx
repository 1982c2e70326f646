import { Alert, Anchor, Button, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { adminKeys, membersApi } from '../../admin/admin.api';
import { ApiError } from '../../api/client';
import { useSession } from '../../auth/session';
import { PublicPage } from '../../layout/PublicPage';
import { ORG_ROLE_LABELS } from '../client/settings/team/org-roles';

/**
 * `/invitations/accept?token=`: the link of a member invitation mail. The signed-in invited user
 * sees the org and the role, and accepts; nothing changes before that.
 */
export function AcceptInvitationPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const session = useSession();

  let body;
  if (!token) body = <Alert color="red">This link has no invitation in it. Open the link from the invitation email.</Alert>;
  else if (session.status === 'signed-out') {
    body = (
      <Alert color="blue" title="Sign in first">
        Sign in with the address the invitation was sent to, then open the link from the email again.{' '}
        <Anchor component={Link} to="/login">
          Sign in
        </Anchor>
      </Alert>
    );
  } else if (session.status === 'signed-in') body = <Invitation token={token} email={session.user.email} landing={session.user.landing} />;
  else body = <Loader aria-label="Loading session" />;

  return (
    <PublicPage title="Join an organization" width={520}>
      {body}
    </PublicPage>
  );
}

function Invitation({ token, email, landing }: { token: string; email: string; landing: string }) {
  const queryClient = useQueryClient();
  const invitation = useQuery({ queryKey: adminKeys.invitation(token), queryFn: ({ signal }) => membersApi.invitation(token, signal), retry: false });
  const accept = useMutation({
    mutationFn: () => membersApi.acceptInvitation(token),
    // The session's memberships change: the next read of /auth/me shows the new org.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['auth', 'me'] }),
  });

  if (invitation.isPending) return <Loader aria-label="Loading the invitation" />;
  if (invitation.error) {
    const gone = invitation.error instanceof ApiError && invitation.error.statusCode === 410;
    return (
      <Alert color="red" role="alert" title="This invitation cannot be accepted">
        {gone ? invitation.error.message : `It is not for the account you are signed in with (${email}), or it does not exist.`}
      </Alert>
    );
  }
  const { orgName, orgRole } = invitation.data;
  if (accept.isSuccess) {
    return (
      <Alert color="green" role="status" title="Invitation accepted">
        You are now a member of {orgName}.{' '}
        <Anchor component={Link} to={landing}>
          Continue
        </Anchor>
      </Alert>
    );
  }
  return (
    <Paper withBorder p="lg">
      <Stack>
        <Text>
          You have been invited to join <strong>{orgName}</strong> as {ORG_ROLE_LABELS[orgRole]}. Nothing changes until you accept.
        </Text>
        <Text size="sm" c="dimmed">
          Signed in as {email}. The invitation expires on {invitation.data.expiresAt.slice(0, 10)}.
        </Text>
        {accept.error && (
          <Alert color="red" role="alert">
            {accept.error.message}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button onClick={() => accept.mutate()} loading={accept.isPending}>
            Accept invitation
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
