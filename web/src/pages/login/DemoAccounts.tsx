import { Anchor, Code, Paper, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { authApi, type DemoAccount } from '../../auth/auth.api';
import { roleLabelOf } from '../../auth/roles';

/**
 * Shown only where the server offers demo accounts (never in production, where the route is 404).
 * Choosing an account fills the sign-in form with it.
 */
export function DemoAccounts({ onPick }: { onPick: (account: DemoAccount) => void }) {
  const { data } = useQuery({
    queryKey: ['auth', 'demo-accounts'],
    queryFn: ({ signal }) => authApi.demoAccounts(signal),
    retry: false,
    staleTime: Infinity,
  });
  if (!data || data.accounts.length === 0) return null;

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="demo-accounts-title" data-testid="demo-accounts">
      <Title order={2} size="h5" id="demo-accounts-title">
        Demo accounts
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        Choose an account to fill in the form, then sign in.
      </Text>
      <Table.ScrollContainer minWidth={420}>
        <Table fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Email</Table.Th>
              <Table.Th>Password</Table.Th>
              <Table.Th>Role</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.accounts.map((account) => (
              <Table.Tr key={account.email}>
                <Table.Td>
                  <Anchor component="button" type="button" fz="sm" ta="left" onClick={() => onPick(account)} aria-label={`Use ${account.email}`}>
                    {account.email}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Code>{account.password}</Code>
                </Table.Td>
                <Table.Td data-testid="demo-account-role">{roleLabelOf(account.role)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text size="sm" mt="xs">
        Sign-in codes sent by mail can be read in the{' '}
        <Anchor component={Link} to="/dev/mail">
          development mail outbox
        </Anchor>
        .
      </Text>
    </Paper>
  );
}
