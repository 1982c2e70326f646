import { Paper, Tabs } from '@mantine/core';
import { useState } from 'react';
import { Navigate } from 'react-router';
import { useSession } from '../../auth/session';
import { PublicPage } from '../../layout/PublicPage';
import { DemoAccounts } from './DemoAccounts';
import { EmailCodeLoginForm } from './EmailCodeLoginForm';
import { PasswordLoginForm } from './PasswordLoginForm';

export function LoginPage() {
  const session = useSession();
  const [email, setEmail] = useState('');

  if (session.status === 'signed-in') return <Navigate to={session.user.landing} replace />;

  return (
    <PublicPage title="Sign in" width={600}>
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
    </PublicPage>
  );
}
