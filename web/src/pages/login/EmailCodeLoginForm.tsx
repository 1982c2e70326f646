import { Button, Group, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, fieldErrorsOf, formErrorOf } from '../../api/client';
import { authApi } from '../../auth/auth.api';
import { useSignIn } from '../../auth/session';
import { AuthenticatorCodeField, CodeField, EmailField, FormAlert } from './FormParts';

export function EmailCodeLoginForm({ email, onEmailChange }: { email: string; onEmailChange: (email: string) => void }) {
  const signIn = useSignIn();
  const [codeSent, setCodeSent] = useState(false);
  const [code, setCode] = useState('');
  // With two-factor sign-in on, the emailed code comes with a code from the authenticator app.
  const [totpRequired, setTotpRequired] = useState(false);
  const [totpCode, setTotpCode] = useState('');

  const requestCode = useMutation({
    mutationFn: () => authApi.requestOtp({ email }),
    onSuccess: () => {
      setCode('');
      setCodeSent(true);
    },
  });
  const verifyCode = useMutation({
    mutationFn: async () => {
      const { token } = await authApi.verifyOtp({ email, code, totpCode: totpRequired ? totpCode : undefined });
      await signIn(token);
    },
    onError: (error) => {
      if (error instanceof ApiError && error.code === 'totp_required') setTotpRequired(true);
    },
  });

  const startOver = () => {
    setCodeSent(false);
    requestCode.reset();
    verifyCode.reset();
  };

  if (!codeSent) {
    const submit = (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      requestCode.mutate();
    };
    const formError = formErrorOf(requestCode.error, ['email']);
    return (
      <form onSubmit={submit} noValidate aria-label="Request a sign-in code">
        <Stack>
          <FormAlert title="Could not send the code" message={formError} />
          <EmailField value={email} onChange={onEmailChange} error={fieldErrorsOf(requestCode.error).email} />
          <Button type="submit" loading={requestCode.isPending}>
            Send code
          </Button>
        </Stack>
      </form>
    );
  }

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    verifyCode.mutate();
  };
  const fieldErrors = fieldErrorsOf(verifyCode.error);
  // A failed "Send a new code" is reported here too.
  const totpAsked = verifyCode.error instanceof ApiError && verifyCode.error.code === 'totp_required';
  const formError = (totpAsked ? null : formErrorOf(verifyCode.error, ['code', 'totpCode'])) ?? formErrorOf(requestCode.error, []);
  return (
    <form onSubmit={submit} noValidate aria-label="Sign in with a code">
      <Stack>
        <Text size="sm" data-testid="code-sent">
          If an account exists for <strong>{email}</strong>, we sent it a 6-digit sign-in code.
        </Text>
        <FormAlert title="Sign-in failed" message={formError} />
        <CodeField label="Code" value={code} onChange={setCode} error={fieldErrors.code} />
        {totpRequired && <AuthenticatorCodeField value={totpCode} onChange={setTotpCode} error={fieldErrors.totpCode} />}
        <Button type="submit" loading={verifyCode.isPending}>
          Sign in
        </Button>
        <Group justify="space-between">
          <Button variant="subtle" size="xs" onClick={() => requestCode.mutate()} loading={requestCode.isPending}>
            Send a new code
          </Button>
          <Button variant="subtle" size="xs" onClick={startOver}>
            Use a different email
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
