import { Container, Paper, Stack, Tabs, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Navigate } from 'react-router';
import { useSession } from '../../auth/session';
import { PRODUCT_NAME } from '../../layout/AppLayout';
import { DemoAccounts } from './DemoAccounts';
import { EmailCodeLoginForm } from './EmailCodeLoginForm';
import { PasswordLoginForm } from './PasswordLoginForm';

export function LoginPage() {
  const session = useSession();
  const [email, setEmail] = useState('');

  useEffect(() => {
    document.title = `Sign in · ${PRODUCT_NAME}`;
  }, []);

  if (session.status === 'signed-in') return <Navigate to={session.user.landing} replace />;

  return (
    <Container size={600} py="xl">
      <Stack>
        <div>
          <Text c="dimmed" size="sm">
            {PRODUCT_NAME}
          </Text>
          <Title order={1}>Sign in</Title>
        </div>
        <Paper withBorder p="lg">
          {/* Unmount the hidden tab, so that each label ("Email") names one field on the page. */}
          <Tabs defaultValue="password" keepMounted={false}>
            <Tabs.List mb="md" grow>
              <Tabs.Tab value="password">Password</Tabs.Tab>
              <Tabs.Tab value="email-code">Email code</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="password">
              <PasswordLoginForm email={email} onEmailChange={setEmail} />
            </Tabs.Panel>
            <Tabs.Panel value="email-code">
              <EmailCodeLoginForm email={email} onEmailChange={setEmail} />
            </Tabs.Panel>
          </Tabs>
        </Paper>
        <DemoAccounts />
      </Stack>
    </Container>
  );
}
