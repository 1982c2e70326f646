import { TextInput } from '@mantine/core';

/** Gate rule 2 needs the AM profile to have a name: asked for here while it is empty. */
export function AmProfileNameField({ value, onChange, error }: { value: string; onChange: (name: string) => void; error?: string }) {
  return (
    <TextInput
      label="AM profile name"
      description="Your name as account manager, shared by every org you set up. Setup cannot finish without it."
      required
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={error}
      autoComplete="name"
    />
  );
}
