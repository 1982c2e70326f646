import { Alert, Anchor, Button, Card, Code, Container, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import type { DevMailItem } from '@contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { apiFetch } from '../../api/client';
import { PRODUCT_NAME } from '../../layout/AppLayout';

const LIMIT = 50;

function MailCard({ mail }: { mail: DevMailItem }) {
  return (
    <Card withBorder component="article" data-testid="mail-item" aria-label={mail.subject}>
      <Title order={2} size="h5">
        {mail.subject}
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        To <span data-testid="mail-to">{mail.to}</span> · <time dateTime={mail.createdAt}>{new Date(mail.createdAt).toLocaleString()}</time>
      </Text>
      {mail.erasedAt ? (
        <Text size="sm" c="dimmed" fs="italic" data-testid="mail-erased">
          It carried a code or a link: its body was erased on {new Date(mail.erasedAt).toLocaleString()}.
        </Text>
      ) : (
        <Code block data-testid="mail-text" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {mail.text}
        </Code>
      )}
    </Card>
  );
}

/** The development mail outbox (API-MAP.md): every mail the server would have sent. */
export function DevMailPage() {
  const [recipient, setRecipient] = useState('');
  const [to] = useDebouncedValue(recipient.trim(), 300);

  useEffect(() => {
    document.title = `Development mail · ${PRODUCT_NAME}`;
  }, []);

  const mail = useQuery({
    queryKey: ['dev', 'mail', to],
    queryFn: ({ signal }) => apiFetch<DevMailItem[]>('/dev/mail', { query: { to, limit: LIMIT }, signal }),
  });

  return (
    <Container size="md" py="xl">
      <Stack>
        <Group justify="space-between" align="baseline">
          <Title order={1}>Development mail</Title>
          <Anchor component={Link} to="/" size="sm">
            Back to the app
          </Anchor>
        </Group>
        <Text c="dimmed" size="sm">
          Outside production, mail is kept here instead of being sent. Newest first, at most {LIMIT}.
        </Text>
        <Group align="flex-end">
          <TextInput label="Recipient" placeholder="someone@example.com" type="search" value={recipient} onChange={(event) => setRecipient(event.currentTarget.value)} style={{ flex: 1 }} />
          <Button variant="default" onClick={() => void mail.refetch()} loading={mail.isFetching}>
            Refresh
          </Button>
        </Group>
        {mail.error && (
          <Alert color="red" role="alert" title="Could not load the mail">
            {mail.error.message}
          </Alert>
        )}
        {mail.data?.length === 0 && <Text c="dimmed">No mail{to ? ` to ${to}` : ''} yet.</Text>}
        {mail.data?.map((item) => (
          <MailCard key={item.id} mail={item} />
        ))}
      </Stack>
    </Container>
  );
}
