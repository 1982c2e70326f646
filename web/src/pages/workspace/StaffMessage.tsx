import { Alert, Badge, Button, Group, Stack, TextInput, Textarea } from '@mantine/core';
import type { ConversationDto, MessageDelivery, MessageDto } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { conversationsApi } from '../../conversations/conversations.api';
import { MessageBubble } from '../../conversations/MessageBubble';
import { addMessages } from '../../conversations/thread';

/** Corrects a delivered reply in place (audited; the original stays in its history). */
function CorrectionForm({ message, onDone }: { message: MessageDto; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [content, setContent] = useState(message.content);
  const [reason, setReason] = useState('');
  const correct = useMutation({
    mutationFn: () => conversationsApi.correct(message.conversationId, message.id, { content: content.trim(), ...(reason.trim() ? { reason: reason.trim() } : {}) }),
    onSuccess: (corrected) => {
      addMessages(queryClient, corrected.conversationId, [corrected]);
      onDone();
    },
  });
  const unchanged = content.trim() === message.content.trim();

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        correct.mutate();
      }}
    >
      <Stack gap="xs" mt="sm" data-testid="correction-form">
        <Textarea label="Corrected text" autosize minRows={2} maxLength={20_000} value={content} onChange={(event) => setContent(event.currentTarget.value)} data-testid="correction-content" />
        <TextInput
          label="Reason"
          description="Optional; kept in the audit log"
          maxLength={1000}
          value={reason}
          onChange={(event) => setReason(event.currentTarget.value)}
          data-testid="correction-reason"
        />
        {correct.error && (
          <Alert color="red" role="alert">
            {correct.error.message}
          </Alert>
        )}
        <Group justify="flex-end" gap="xs">
          <Button size="xs" variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button size="xs" type="submit" loading={correct.isPending} disabled={unchanged || !content.trim()} data-testid="correction-save">
            Save correction
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

const DELIVERY_BADGES: Record<MessageDelivery, { label: string; color: string; title: string }> = {
  held: { label: 'Held — mailbox suspended', color: 'orange', title: "Not sent: the Specialist's mailbox is suspended. It is sent when the mailbox is restored." },
  queued: { label: 'Sending', color: 'blue', title: 'Queued for the channel' },
  sent: { label: 'Sent', color: 'teal', title: 'Delivered to the channel' },
  failed: { label: 'Not delivered', color: 'red', title: 'The channel refused it after every retry' },
};

/** How far a reply that leaves through a channel got (staff only). */
function DeliveryBadge({ delivery }: { delivery: MessageDelivery | undefined }) {
  if (!delivery) return null;
  const badge = DELIVERY_BADGES[delivery];
  return (
    <Badge size="xs" variant="light" color={badge.color} title={badge.title} data-testid="message-delivery" data-delivery={delivery}>
      {badge.label}
    </Badge>
  );
}

/** A message as staff see it: who really wrote it, internal notes and activity entries marked. */
export function StaffMessage({ message, conversation, userId }: { message: MessageDto; conversation: ConversationDto; userId: string }) {
  const [correcting, setCorrecting] = useState(false);
  const byWhom = message.sender_id === userId ? 'you' : 'an Expert';

  if (message.role === 'system') {
    return <MessageBubble message={message} side="center" tone="system" author="Activity" />;
  }
  if (message.role === 'client') {
    return <MessageBubble message={message} side="start" tone="plain" author="Client" />;
  }
  if (message.is_internal) {
    return (
      <MessageBubble
        message={message}
        side="end"
        tone="internal"
        author={`Note by ${byWhom}`}
        badges={
          <Badge size="xs" color="yellow" variant="filled" data-testid="internal-note-badge">
            Internal note · not shown to the client
          </Badge>
        }
      />
    );
  }
  // A delivered reply, or a follow-up the client sees as the Specialist's: both can be corrected.
  const author = message.role === 'specialist' ? `${conversation.specialist.name} · Specialist` : `${conversation.specialist.name} · follow-up by ${byWhom}`;
  return (
    <MessageBubble
      message={message}
      side="end"
      tone="own"
      author={author}
      badges={<DeliveryBadge delivery={message.delivery} />}
      footer={
        correcting ? (
          <CorrectionForm message={message} onDone={() => setCorrecting(false)} />
        ) : (
          <Group justify="flex-end" mt={4}>
            <Button size="compact-xs" variant="subtle" onClick={() => setCorrecting(true)} data-testid="message-correct">
              Correct
            </Button>
          </Group>
        )
      }
    />
  );
}
