import { Button, PasswordInput, Stack } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, fieldErrorsOf, formErrorOf } from '../../api/client';
import { authApi } from '../../auth/auth.api';
import { useSignIn } from '../../auth/session';
import { CodeField, EmailField, FormAlert } from './FormParts';

const isTotpRequired = (error: unknown): boolean => error instanceof ApiError && error.code === 'totp_required';

export function PasswordLoginForm({ email, onEmailChange }: { email: string; onEmailChange: (email: string) => void }) {
  const signIn = useSignIn();
  const [password, setPassword] = useState('');
  const [totpCode, setTotpCode] = useState('');
  const [totpRequired, setTotpRequired] = useState(false);

  const login = useMutation({
    mutationFn: async () => {
      const { token } = await authApi.login({ email, password, totpCode: totpRequired ? totpCode : undefined });
      await signIn(token);
    },
    onError: (error) => {
      if (isTotpRequired(error)) setTotpRequired(true);
    },
  });

  const fieldErrors = fieldErrorsOf(login.error);
  const formError = isTotpRequired(login.error) ? null : formErrorOf(login.error, ['email', 'password', 'totpCode']);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    login.mutate();
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Sign in with password">
      <Stack>
        <FormAlert title="Sign-in failed" message={formError} />
        <EmailField
          value={email}
          onChange={(value) => {
            onEmailChange(value);
            setTotpRequired(false);
          }}
          error={fieldErrors.email}
        />
        <PasswordInput
          label="Password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
          error={fieldErrors.password}
        />
        {totpRequired && (
          <CodeField
            label="Authentication code"
            description="Enter the 6-digit code from your authenticator app."
            value={totpCode}
            onChange={setTotpCode}
            error={fieldErrors.totpCode}
          />
        )}
        <Button type="submit" loading={login.isPending}>
          Sign in
        </Button>
      </Stack>
    </form>
  );
}
