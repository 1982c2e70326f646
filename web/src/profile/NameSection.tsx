import { Alert, Button, Card, Group, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { authApi } from '../auth/auth.api';
import { useCurrentUser } from '../auth/current-user';
import { roleLabel } from '../auth/roles';

/** The caller's name (editable), email and role. */
export function NameSection() {
  const user = useCurrentUser();
  const queryClient = useQueryClient();
  const [name, setName] = useState(user.name);
  const save = useMutation({
    mutationFn: () => authApi.updateMe({ name: name.trim() }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['auth', 'me'] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <Card withBorder>
      <form onSubmit={submit} aria-label="Profile">
        <Stack>
          <Title order={2} size="h4">
            Profile
          </Title>
          {save.error && (
            <Alert color="red" role="alert">
              {save.error.message}
            </Alert>
          )}
          {save.isSuccess && name.trim() === user.name && (
            <Alert color="green" role="status">
              Saved.
            </Alert>
          )}
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={200} />
          <TextInput label="Email" value={user.email} readOnly description="Ask an administrator to change your email." />
          <TextInput label="Role" value={roleLabel(user.platformRole)} readOnly />
          <Group justify="flex-end">
            <Button type="submit" disabled={name.trim() === user.name} loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
