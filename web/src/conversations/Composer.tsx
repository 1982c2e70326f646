import { Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { useEffect, useRef, useState, type ReactNode } from 'react';

const MAX_LENGTH = 20_000;

/**
 * The message box of a thread. Enter sends, Shift+Enter starts a new line (a character being
 * composed with an input method is never cut short). `onSend` resolves true once the message is
 * taken (the box then empties), false when it was refused (the text stays for another try). The
 * box keeps the focus through a send; while `disabled` (a reply on its way) or sending, nothing
 * more is sent, but the next message can be written.
 */
export function Composer({
  label,
  placeholder,
  submitLabel,
  disabled = false,
  onSend,
  above,
  autoFocus = false,
  testId = 'composer',
}: {
  label: string;
  placeholder?: string;
  submitLabel: string;
  disabled?: boolean;
  onSend: (content: string) => Promise<boolean>;
  /** Controls above the box (what kind of message it is). */
  above?: ReactNode;
  /** Take the focus when shown (a thread just opened by the first message). */
  autoFocus?: boolean;
  testId?: string;
}) {
  const [value, setValue] = useState('');
  const [sending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const content = value.trim();
  const blocked = sending || disabled;

  useEffect(() => {
    if (autoFocus) box.current?.focus();
  }, [autoFocus]);

  const submit = async () => {
    if (!content || blocked) return;
    setSending(true);
    try {
      if (await onSend(content)) setValue('');
    } finally {
      setSending(false);
      box.current?.focus();
    }
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
      data-testid={testId}
    >
      <Stack gap={4}>
        {above}
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <Textarea
            ref={box}
            aria-label={label}
            placeholder={placeholder}
            autosize
            minRows={1}
            maxRows={6}
            maxLength={MAX_LENGTH}
            value={value}
            readOnly={sending}
            aria-busy={sending}
            onChange={(event) => setValue(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key !== 'Enter' || event.shiftKey || event.altKey) return;
              // An input method composing a character uses Enter to confirm it.
              if (event.nativeEvent.isComposing || event.keyCode === 229) return;
              event.preventDefault();
              void submit();
            }}
            style={{ flex: 1, minWidth: 0 }}
            data-testid={`${testId}-input`}
          />
          <Button type="submit" loading={sending} disabled={blocked || !content} data-testid={`${testId}-send`}>
            {submitLabel}
          </Button>
        </Group>
        <Text size="xs" c="dimmed" visibleFrom="sm">
          Enter sends · Shift+Enter for a new line
        </Text>
      </Stack>
    </form>
  );
}
