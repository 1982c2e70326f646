import { Alert, Anchor, Button, Stack } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { fieldErrorsOf, formErrorOf } from '../../api/client';
import { authApi } from '../../auth/auth.api';
import { PublicPage } from '../../layout/PublicPage';
import { CodeField, EmailField, FormAlert } from '../login/FormParts';
import { PasswordField } from '../../forms/PasswordField';

/** `/reset-password?email=`: the user redeems the code of an administrator-initiated reset. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const reset = useMutation({ mutationFn: () => authApi.resetPassword({ email, code, password }) });
  const fieldErrors = fieldErrorsOf(reset.error);
  const mismatch = repeat !== '' && repeat !== password;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!mismatch) reset.mutate();
  };

  return (
    <PublicPage title="Choose a new password" width={440}>
      {reset.isSuccess ? (
        <Alert color="green" role="status" title="Password changed">
          Your password was changed and every other session was signed out.{' '}
          <Anchor component={Link} to="/login">
            Sign in
          </Anchor>
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate aria-label="Reset password">
          <Stack>
            <FormAlert title="Could not change the password" message={formErrorOf(reset.error, ['email', 'code', 'password'])} />
            <EmailField value={email} onChange={setEmail} error={fieldErrors.email} />
            <CodeField label="Reset code" description="The 6-digit code from the email (valid 30 minutes)." value={code} onChange={setCode} error={fieldErrors.code} />
            <PasswordField label="New password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} error={fieldErrors.password} />
            <PasswordField
              label="Repeat the new password"
              autoComplete="new-password"
              required
              value={repeat}
              onChange={(e) => setRepeat(e.currentTarget.value)}
              error={mismatch ? 'The passwords differ' : undefined}
            />
            <Button type="submit" loading={reset.isPending} disabled={mismatch}>
              Change password
            </Button>
          </Stack>
        </form>
      )}
    </PublicPage>
  );
}
