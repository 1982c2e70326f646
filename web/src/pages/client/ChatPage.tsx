import { Button, Grid, Paper, Stack, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { Page } from '../../layout/Page';
import { ClientThread } from './chat/ClientThread';
import { ConversationList } from './chat/ConversationList';
import { NewConversation } from './chat/NewConversation';
import { useReplyStream } from './chat/useReplyStream';
import { TrialBanner } from './TrialBanner';

const PARAM = 'conversation';
const NEW = 'new';

/** `/client/chat`: the client's threads and the open one (`?conversation=<id>`, or `new`). */
export function ChatPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const selected = searchParams.get(PARAM);
  // Kept here, above the thread: a first message keeps streaming once its new thread opens.
  const stream = useReplyStream();
  const open = (id: string, replace = false) => setSearchParams({ [PARAM]: id }, { replace });

  return (
    <Page title="Chat">
      <TrialBanner />
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 4 }}>
          <ConversationList selectedId={selected} onSelect={(id) => open(id)} onNew={() => open(NEW)} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          {selected === NEW ? (
            <NewConversation stream={stream} onCreated={(id) => open(id, true)} />
          ) : selected ? (
            <ClientThread key={selected} conversationId={selected} stream={stream} />
          ) : (
            <Paper withBorder p="xl" data-testid="no-conversation-open">
              <Stack align="center" gap="sm">
                <Text c="dimmed">Open a conversation, or start a new one with your Specialist.</Text>
                <Button onClick={() => open(NEW)}>New conversation</Button>
              </Stack>
            </Paper>
          )}
        </Grid.Col>
      </Grid>
    </Page>
  );
}
