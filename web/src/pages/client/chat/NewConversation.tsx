import { ActionIcon, Alert, Group, Paper, Radio, ScrollArea, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useCurrentUser } from '../../../auth/current-user';
import { Composer } from '../../../conversations/Composer';
import { conversationKeys, conversationsApi, type ClientSpecialist } from '../../../conversations/conversations.api';
import { Bubble, PersonAvatar } from '../../../conversations/MessageBubble';
import { putInLists, type ThreadPages } from '../../../conversations/thread';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import type { ReplyStream } from './useReplyStream';

/** "customer-support" as people write it: "customer support". */
const skillWords = (tag: string) => tag.replace(/[-_]+/g, ' ').trim();

function listed(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** The Specialist's greeting: who it is and what it can help with (its skills). */
export function welcomeText(specialist: ClientSpecialist, clientName: string): string {
  const firstName = clientName.trim().split(/\s+/)[0];
  const skills = specialist.skillTags.map(skillWords).filter(Boolean);
  return [
    `Hello${firstName ? ` ${firstName}` : ''}, I'm ${specialist.name}, your Specialist.`,
    skills.length > 0 ? `I can help you with ${listed(skills)}.` : 'I can help you with your questions and tasks.',
    'Tell me what you need and I will get started right away.',
  ].join(' ');
}

/** Which of the org's Specialists the conversation goes to (shown when there are several). */
function SpecialistChoice({ specialists, value, onChange }: { specialists: ClientSpecialist[]; value: string; onChange: (assignmentId: string) => void }) {
  return (
    <Radio.Group value={value} onChange={onChange} label="Talk to" data-testid="specialist-choice">
      <Group gap="xs" mt={4} wrap="wrap">
        {specialists.map((specialist) => (
          <Radio.Card
            key={specialist.assignmentId}
            value={specialist.assignmentId}
            radius="md"
            p={6}
            w="auto"
            data-testid="specialist-option"
            data-assignment-id={specialist.assignmentId}
            aria-label={specialist.name}
          >
            <Group gap="xs" wrap="nowrap">
              <Radio.Indicator size="xs" />
              <PersonAvatar name={specialist.name} src={specialist.avatarUrl} size={24} />
              <Text size="sm">{specialist.name}</Text>
            </Group>
          </Radio.Card>
        ))}
      </Group>
    </Radio.Group>
  );
}

/**
 * A conversation not started yet: the chosen Specialist (the primary unless the client picks
 * another) greets the client with what it can help with; the first message creates the
 * conversation with that Specialist, opens it, and streams the reply there.
 */
export function NewConversation({
  stream,
  onCreated,
  assignmentId,
  onChooseSpecialist,
  onBack,
}: {
  stream: ReplyStream;
  onCreated: (id: string) => void;
  /** The Specialist chosen in the address, if any. */
  assignmentId: string | null;
  onChooseSpecialist: (assignmentId: string) => void;
  onBack?: () => void;
}) {
  const queryClient = useQueryClient();
  const user = useCurrentUser();
  const [subject, setSubject] = useState('');
  const [error, setError] = useState<string | null>(null);
  const specialists = useQuery({ queryKey: conversationKeys.specialists, queryFn: ({ signal }) => conversationsApi.specialists(signal), staleTime: 5 * 60_000 });
  const items = specialists.data?.items ?? [];
  const chosen = items.find((s) => s.assignmentId === assignmentId) ?? items.find((s) => s.isPrimary) ?? items[0];

  const start = async (content: string): Promise<boolean> => {
    if (!chosen) return false;
    setError(null);
    let created;
    try {
      created = await conversationsApi.create({ assignmentId: chosen.assignmentId, ...(subject.trim() && { subject: subject.trim() }) });
    } catch (cause) {
      setError(cause instanceof Error ? cause.message : 'The conversation could not be started.');
      return false;
    }
    const { messages, ...conversation } = created;
    queryClient.setQueryData<ThreadPages>(conversationKeys.thread(conversation.id), {
      pages: [{ conversation, messages, nextCursor: null, humanRequestedAt: null }],
      pageParams: [undefined],
    });
    putInLists(queryClient, conversation);
    onCreated(conversation.id);
    return stream.send(conversation.id, content);
  };

  return (
    <Paper withBorder p="sm" h="100%" style={{ display: 'flex', flexDirection: 'column', minHeight: 0 }} data-testid="new-conversation-form">
      <Stack gap="xs" mb="xs">
        <Group gap="sm" wrap="nowrap">
          {onBack && (
            <ActionIcon variant="subtle" size="lg" onClick={onBack} aria-label="Back to conversations" data-testid="thread-back">
              <span aria-hidden="true">←</span>
            </ActionIcon>
          )}
          <Title order={2} size="h5">
            New conversation
          </Title>
        </Group>
        {items.length > 1 && chosen && <SpecialistChoice specialists={items} value={chosen.assignmentId} onChange={onChooseSpecialist} />}
      </Stack>
      <ScrollArea style={{ flex: 1, minHeight: 0 }} type="auto">
        <Stack gap="sm" p="xs">
          {specialists.isPending && <SectionLoader label="Loading your Specialists" />}
          <QueryAlert title="Could not load your Specialists" error={specialists.error} retry={() => void specialists.refetch()} />
          {specialists.data && !chosen && (
            <Text size="sm" c="dimmed" data-testid="no-specialist">
              No Specialist works with your organization yet. Your account manager will set one up.
            </Text>
          )}
          {chosen && (
            <Bubble
              side="start"
              tone="plain"
              author={chosen.name}
              avatar={<PersonAvatar name={chosen.name} src={chosen.avatarUrl} />}
              content={welcomeText(chosen, user.name)}
              data={{ 'data-testid': 'welcome', 'data-assignment-id': chosen.assignmentId }}
            />
          )}
        </Stack>
      </ScrollArea>
      {chosen && (
        <Stack gap={4} mt="xs">
          <TextInput
            size="xs"
            aria-label="Subject (optional)"
            placeholder="Subject (optional)"
            maxLength={300}
            value={subject}
            onChange={(event) => setSubject(event.currentTarget.value)}
            data-testid="new-conversation-subject"
          />
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <Composer label={`Message to ${chosen.name}`} placeholder={`Write to ${chosen.name}`} submitLabel="Send" disabled={stream.live !== null} onSend={start} />
        </Stack>
      )}
    </Paper>
  );
}
