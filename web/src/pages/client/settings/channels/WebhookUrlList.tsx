import { Button, CopyButton, Group, Stack, Text, TextInput } from '@mantine/core';

/** The webhook URLs of a channel, each with a copy button, to paste into the vendor's settings. */
export function WebhookUrlList({ urls }: { urls: string[] | undefined }) {
  if (!urls || urls.length === 0) return null;
  return (
    <Stack gap="xs" data-testid="webhook-urls">
      <Text fw={500} size="sm">
        {urls.length === 1 ? 'Webhook URL' : 'Webhook URLs'}
      </Text>
      {urls.map((url) => (
        <Group key={url} align="center" wrap="nowrap">
          <TextInput readOnly value={url} aria-label="Webhook URL" onFocus={(event) => event.currentTarget.select()} data-testid="webhook-url" style={{ flex: 1 }} />
          <CopyButton value={url}>
            {({ copied, copy }) => (
              <Button variant={copied ? 'filled' : 'default'} color={copied ? 'teal' : undefined} onClick={copy} data-testid="copy-webhook-url" aria-label={`Copy ${url}`}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      ))}
    </Stack>
  );
}
