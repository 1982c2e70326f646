import { Button, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent, type RefObject } from 'react';
import { ApiError, fieldErrorsOf, formErrorOf } from '../../api/client';
import { authApi } from '../../auth/auth.api';
import { useSignIn } from '../../auth/session';
import { AuthenticatorCodeField, EmailField, FormAlert } from './FormParts';
import { PasswordField } from '../../forms/PasswordField';

const isTotpRequired = (error: unknown): boolean => error instanceof ApiError && error.code === 'totp_required';

interface PasswordLoginFormProps {
  email: string;
  onEmailChange: (email: string) => void;
  password: string;
  onPasswordChange: (password: string) => void;
  submitRef?: RefObject<HTMLButtonElement | null>;
  /** The email field takes the focus (on opening the page, not on coming back to this tab). */
  autoFocus?: boolean;
}

export function PasswordLoginForm({ email, onEmailChange, password, onPasswordChange: setPassword, submitRef, autoFocus }: PasswordLoginFormProps) {
  const signIn = useSignIn();
  const [totpCode, setTotpCode] = useState('');
  const [totpRequired, setTotpRequired] = useState(false);
  // A user who lost the authenticator signs in with one of their recovery codes instead.
  const [useRecovery, setUseRecovery] = useState(false);
  const [recoveryCode, setRecoveryCode] = useState('');

  const login = useMutation({
    mutationFn: async () => {
      const secondFactor = !totpRequired ? {} : useRecovery ? { recoveryCode } : { totpCode };
      const { token } = await authApi.login({ email, password, ...secondFactor });
      await signIn(token);
    },
    onError: (error) => {
      if (isTotpRequired(error)) setTotpRequired(true);
    },
  });

  const fieldErrors = fieldErrorsOf(login.error);
  const formError = isTotpRequired(login.error) ? null : formErrorOf(login.error, ['email', 'password', 'totpCode', 'recoveryCode']);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    login.mutate();
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Sign in with password">
      <Stack>
        <FormAlert title="Sign-in failed" message={formError} />
        <EmailField
          autoFocus={autoFocus}
          value={email}
          onChange={(value) => {
            onEmailChange(value);
            setTotpRequired(false);
          }}
          error={fieldErrors.email}
        />
        <PasswordField label="Password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.currentTarget.value)} error={fieldErrors.password} />
        {totpRequired && !useRecovery && <AuthenticatorCodeField value={totpCode} onChange={setTotpCode} error={fieldErrors.totpCode} />}
        {totpRequired && useRecovery && (
          <TextInput
            label="Recovery code"
            description="One of the recovery codes you saved when you set up two-factor sign-in. Each works once."
            autoComplete="off"
            required
            autoFocus
            value={recoveryCode}
            onChange={(event) => setRecoveryCode(event.currentTarget.value)}
            error={fieldErrors.recoveryCode}
          />
        )}
        {totpRequired && (
          <Button variant="subtle" size="xs" onClick={() => setUseRecovery(!useRecovery)}>
            {useRecovery ? 'Use a code from the authenticator app' : 'Lost your phone? Use a recovery code'}
          </Button>
        )}
        <Button type="submit" loading={login.isPending} ref={submitRef}>
          Sign in
        </Button>
      </Stack>
    </form>
  );
}
