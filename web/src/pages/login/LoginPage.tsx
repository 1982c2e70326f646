import { Paper, Tabs } from '@mantine/core';
import { useRef, useState } from 'react';
import { Navigate, useLocation } from 'react-router';
import type { DemoAccount } from '../../auth/auth.api';
import { nextPathOf } from '../../auth/next-path';
import { useSession } from '../../auth/session';
import { PublicPage } from '../../layout/PublicPage';
import { DemoAccounts } from './DemoAccounts';
import { EmailCodeLoginForm } from './EmailCodeLoginForm';
import { PasswordLoginForm } from './PasswordLoginForm';

type Method = 'password' | 'email-code';

export function LoginPage() {
  const session = useSession();
  const { search } = useLocation();
  const [method, setMethod] = useState<Method>('password');
  const [opening, setOpening] = useState(true);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submitRef = useRef<HTMLButtonElement>(null);

  if (session.status === 'signed-in') return <Navigate to={nextPathOf(search) ?? session.user.landing} replace />;

  // A demo account fills the password form; Sign in is then one key press away.
  const pickDemoAccount = (account: DemoAccount) => {
    setMethod('password');
    setEmail(account.email);
    setPassword(account.password);
    requestAnimationFrame(() => submitRef.current?.focus());
  };

  return (
    <PublicPage title="Sign in" width={600}>
      <Paper withBorder p="lg">
        {/* Unmount the hidden tab, so that each label ("Email") names one field on the page. */}
        <Tabs
          value={method}
          onChange={(value) => {
            setOpening(false);
            setMethod(value === 'email-code' ? 'email-code' : 'password');
          }}
          keepMounted={false}
        >
          <Tabs.List mb="md" grow>
            <Tabs.Tab value="password">Password</Tabs.Tab>
            <Tabs.Tab value="email-code">Email code</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="password">
            <PasswordLoginForm email={email} onEmailChange={setEmail} password={password} onPasswordChange={setPassword} submitRef={submitRef} autoFocus={opening} />
          </Tabs.Panel>
          <Tabs.Panel value="email-code">
            <EmailCodeLoginForm email={email} onEmailChange={setEmail} />
          </Tabs.Panel>
        </Tabs>
      </Paper>
      <DemoAccounts onPick={pickDemoAccount} />
    </PublicPage>
  );
}
