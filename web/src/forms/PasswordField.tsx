import { PasswordInput, type PasswordInputProps } from '@mantine/core';

/**
 * Mantine's PasswordInput, marked invalid for assistive technology while it shows an error
 * (PasswordInput leaves `aria-invalid` off, unlike TextInput). Every password field uses it.
 */
export function PasswordField(props: PasswordInputProps) {
  return <PasswordInput aria-invalid={Boolean(props.error) || undefined} {...props} />;
}
