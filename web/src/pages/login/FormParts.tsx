import { Alert, TextInput } from '@mantine/core';

/** The alert above a sign-in form for an error that belongs to no single field. */
export function FormAlert({ title, message }: { title: string; message: string | null | undefined }) {
  if (!message) return null;
  return (
    <Alert color="red" role="alert" title={title}>
      {message}
    </Alert>
  );
}

/** The email field both sign-in forms share (one address across the tabs). */
export function EmailField({ value, onChange, error, autoFocus }: { value: string; onChange: (email: string) => void; error?: string; autoFocus?: boolean }) {
  return <TextInput label="Email" autoFocus={autoFocus} type="email" autoComplete="username" required value={value} onChange={(event) => onChange(event.currentTarget.value)} error={error} />;
}

/** A 6-digit code: mailed to the user (email sign-in, onboarding) or from an authenticator app. */
export function CodeField({ label, description, value, onChange, error }: { label: string; description?: string; value: string; onChange: (code: string) => void; error?: string }) {
  return (
    <TextInput
      label={label}
      description={description}
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={6}
      required
      autoFocus
      value={value}
      onChange={(event) => onChange(event.currentTarget.value.trim())}
      error={error}
    />
  );
}

/** The second factor of a sign-in once two-factor sign-in is on. */
export function AuthenticatorCodeField({ value, onChange, error }: { value: string; onChange: (code: string) => void; error?: string }) {
  return <CodeField label="Authentication code" description="Enter the 6-digit code from your authenticator app." value={value} onChange={onChange} error={error} />;
}
