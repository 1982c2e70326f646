import { Alert, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { fieldErrorsOf, formErrorOf } from '../api/client';
import { tokenStore } from '../api/token';
import { authApi } from '../auth/auth.api';
import { useCurrentUser } from '../auth/current-user';
import { toast } from '../layout/toast';
import { PasswordField } from '../forms/PasswordField';

const MIN_LENGTH = 8;

/** Changes the caller's own password; their other sessions end, this one goes on with a new token. */
export function PasswordSection() {
  const user = useCurrentUser();
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const change = useMutation({
    mutationFn: () => authApi.changePassword({ currentPassword: current, password }),
    onSuccess: ({ token }) => {
      // The signed-in user is the same: the new session's token is keyed with the answer already known.
      queryClient.setQueryData(['auth', 'me', token], user);
      tokenStore.set(token);
      setCurrent('');
      setPassword('');
      setRepeat('');
      toast.success('Your password is changed. Other devices are signed out.');
    },
  });
  const tooShort = password.length > 0 && password.length < MIN_LENGTH;
  const mismatch = repeat.length > 0 && repeat !== password;
  const newReady = password.length >= MIN_LENGTH && repeat === password;
  // The new password is ready and only the current one is missing: say so, rather than leave the button off unexplained.
  const currentMissing = current === '' && newReady;
  const fields = fieldErrorsOf(change.error);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    change.mutate();
  };

  return (
    <Card withBorder data-testid="password-section">
      <form onSubmit={submit} aria-label="Change password">
        <Stack>
          <Title order={2} size="h4">
            Password
          </Title>
          <Text size="sm" c="dimmed">
            Changing it signs you out on every other device.
          </Text>
          {formErrorOf(change.error, ['currentPassword', 'password']) && (
            <Alert color="red" role="alert">
              {formErrorOf(change.error, ['currentPassword', 'password'])}
            </Alert>
          )}
          <PasswordField
            label="Current password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.currentTarget.value)}
            error={currentMissing ? 'Enter your current password' : fields.currentPassword}
          />
          <PasswordField
            label="New password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={tooShort ? `At least ${MIN_LENGTH} characters` : fields.password}
          />
          <PasswordField
            label="Repeat the new password"
            autoComplete="new-password"
            value={repeat}
            onChange={(e) => setRepeat(e.currentTarget.value)}
            error={mismatch ? 'The two passwords differ' : undefined}
          />
          <Group justify="flex-end">
            <Button type="submit" disabled={!current || !newReady} loading={change.isPending}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
