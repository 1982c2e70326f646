import { Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { useState, type ReactNode } from 'react';

const MAX_LENGTH = 20_000;

/**
 * The message box of a thread. `onSend` resolves true once the message is taken (the box then
 * empties), false when it was refused (the text stays for another try).
 */
export function Composer({
  label,
  placeholder,
  submitLabel,
  disabled = false,
  onSend,
  above,
  testId = 'composer',
}: {
  label: string;
  placeholder?: string;
  submitLabel: string;
  disabled?: boolean;
  onSend: (content: string) => Promise<boolean>;
  /** Controls above the box (what kind of message it is). */
  above?: ReactNode;
  testId?: string;
}) {
  const [value, setValue] = useState('');
  const [sending, setSending] = useState(false);
  const content = value.trim();

  const submit = async () => {
    if (!content || sending || disabled) return;
    setSending(true);
    try {
      if (await onSend(content)) setValue('');
    } finally {
      setSending(false);
    }
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Stack gap="xs">
        {above}
        <Textarea
          label={label}
          placeholder={placeholder}
          autosize
          minRows={2}
          maxRows={8}
          maxLength={MAX_LENGTH}
          value={value}
          onChange={(event) => setValue(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
              event.preventDefault();
              void submit();
            }
          }}
          data-testid={`${testId}-input`}
        />
        <Group justify="space-between">
          <Text size="xs" c="dimmed">
            Ctrl+Enter sends
          </Text>
          <Button type="submit" loading={sending} disabled={disabled || !content} data-testid={`${testId}-send`}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
