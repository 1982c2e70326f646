import { Badge, Button, Stack, Text } from '@mantine/core';
import { useCurrentUser } from '../auth/current-user';
import { roleLabel } from '../auth/roles';
import { useSignOut } from '../auth/session';

/** Who is signed in, their role and Sign out: at the foot of the navigation (in the menu on a phone). */
export function SignedInUser() {
  const user = useCurrentUser();
  const signOut = useSignOut();
  return (
    <Stack gap="xs">
      <div data-testid="current-user" role="group" aria-label="Signed-in user">
        <Text size="sm" fw={500} truncate title={user.name}>
          {user.name}
        </Text>
        <Text size="xs" c="dimmed" truncate title={user.email}>
          {user.email}
        </Text>
      </div>
      <Badge variant="light" data-testid="current-user-role" maw="100%">
        {roleLabel(user.platformRole)}
      </Badge>
      <Button variant="default" size="xs" fullWidth onClick={() => void signOut()}>
        Sign out
      </Button>
    </Stack>
  );
}
