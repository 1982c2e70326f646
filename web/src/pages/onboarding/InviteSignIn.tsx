import { Button, Group, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { fieldErrorsOf, formErrorOf } from '../../api/client';
import { tokenStore } from '../../api/token';
import { onboardingApi } from '../../onboarding/onboarding.api';
import { CodeField, FormAlert } from '../login/FormParts';
import { InviteProblem, inviteProblemOf } from './InviteProblem';

/**
 * The invited admin signs in with the onboarding code mailed to the admin email (single use per
 * invite). The session is stored like any sign-in, so a reload keeps the admin signed in.
 */
export function InviteSignIn({ token, adminEmail, otherUserEmail }: { token: string; adminEmail: string; otherUserEmail?: string }) {
  const [codeSent, setCodeSent] = useState(false);
  const [code, setCode] = useState('');
  const sendCode = useMutation({
    mutationFn: () => onboardingApi.sendCode(token),
    onSuccess: () => {
      setCode('');
      setCodeSent(true);
    },
  });
  const verify = useMutation({
    mutationFn: () => onboardingApi.verifyCode(token, code),
    onSuccess: (session) => tokenStore.set(session.token),
  });

  const problem = inviteProblemOf(verify.error, 'sign-in') ?? inviteProblemOf(sendCode.error, 'sign-in');
  if (problem) return <InviteProblem problem={problem} />;

  const intro = (
    <Text size="sm">
      To confirm it is you, we email a 6-digit code to <strong data-testid="onboarding-admin-email">{adminEmail}</strong>.
      {otherUserEmail && ` You are signed in as ${otherUserEmail}; the code signs you in as ${adminEmail} instead.`}
    </Text>
  );

  if (!codeSent) {
    return (
      <Stack aria-label="Confirm your email" component="section">
        {intro}
        <FormAlert title="Could not send the code" message={formErrorOf(sendCode.error, [])} />
        <Group>
          <Button onClick={() => sendCode.mutate()} loading={sendCode.isPending} data-testid="send-onboarding-code">
            Email me a code
          </Button>
        </Group>
      </Stack>
    );
  }

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    verify.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Enter your onboarding code">
      <Stack>
        <Text size="sm" data-testid="onboarding-code-sent">
          We sent a 6-digit code to <strong>{adminEmail}</strong>. It expires in 10 minutes.
        </Text>
        <FormAlert title="The code was not accepted" message={formErrorOf(verify.error, ['code']) ?? formErrorOf(sendCode.error, [])} />
        <CodeField label="Onboarding code" value={code} onChange={setCode} error={fieldErrorsOf(verify.error).code} />
        <Group>
          <Button type="submit" loading={verify.isPending}>
            Verify
          </Button>
          <Button variant="subtle" size="xs" onClick={() => sendCode.mutate()} loading={sendCode.isPending}>
            Send a new code
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
