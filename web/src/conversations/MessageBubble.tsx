import { Badge, Button, Center, Group, Paper, ScrollArea, Stack, Text } from '@mantine/core';
import type { MessageDto } from '@contracts';
import { useEffect, useRef, type ReactNode } from 'react';
import { formatDateTime } from '../ops/format';
import { Attachments } from './Attachments';

export type BubbleSide = 'start' | 'end' | 'center';
export type BubbleTone = 'plain' | 'own' | 'internal' | 'system';

const TONE_BACKGROUNDS: Record<BubbleTone, string | undefined> = {
  plain: undefined,
  own: 'var(--mantine-primary-color-light)',
  internal: 'var(--mantine-color-yellow-light)',
  system: 'var(--mantine-color-gray-light)',
};

const JUSTIFY: Record<BubbleSide, string> = { start: 'flex-start', end: 'flex-end', center: 'center' };

interface BubbleProps {
  side: BubbleSide;
  tone: BubbleTone;
  author: ReactNode;
  /** Badges beside the author (internal note, corrected). */
  badges?: ReactNode;
  time?: string | null;
  content: string;
  /** Below the content: the message's files. */
  attachments?: ReactNode;
  /** Below the content: actions, an editor. */
  footer?: ReactNode;
  /** data-* attributes of the bubble. */
  data: Record<`data-${string}`, string | boolean | undefined>;
}

/** One entry of a thread: who, when, what. */
export function Bubble({ side, tone, author, badges, time, content, attachments, footer, data }: BubbleProps) {
  return (
    <Group justify={JUSTIFY[side]} wrap="nowrap">
      <Paper withBorder p="sm" radius="md" maw={side === 'center' ? '90%' : '80%'} bg={TONE_BACKGROUNDS[tone]} {...data}>
        <Group gap="xs" justify="space-between" wrap="wrap" mb={4}>
          <Group gap="xs" wrap="wrap">
            <Text size="xs" fw={600} data-testid="message-author">
              {author}
            </Text>
            {badges}
          </Group>
          {time && (
            <Text size="xs" c="dimmed">
              {formatDateTime(time)}
            </Text>
          )}
        </Group>
        <Text size="sm" fs={tone === 'system' ? 'italic' : undefined} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="message-content">
          {content}
        </Text>
        {attachments}
        {footer}
      </Paper>
    </Group>
  );
}

/** The bubble of a stored message, with its id, role and flags as data attributes; a corrected one says so. */
export function MessageBubble({ message, badges, ...props }: Omit<BubbleProps, 'content' | 'time' | 'data' | 'attachments'> & { message: MessageDto }) {
  return (
    <Bubble
      {...props}
      badges={
        <>
          {badges}
          {message.correctedAt && (
            <Badge size="xs" variant="light" color="gray" title={`Corrected ${formatDateTime(message.correctedAt)}`} data-testid="message-corrected">
              corrected
            </Badge>
          )}
        </>
      }
      time={message.createdAt}
      content={message.content}
      attachments={<Attachments attachments={message.attachments} />}
      data={{
        'data-testid': 'message',
        'data-id': message.id,
        'data-role': message.role,
        'data-internal': message.is_internal,
        'data-corrected': message.correctedAt !== null,
      }}
    />
  );
}

/**
 * The scrolling list of a thread, kept at the newest entry as entries arrive; `hasOlder` offers
 * the messages before the loaded ones.
 */
export function ThreadScroll({
  children,
  followKey,
  hasOlder,
  loadingOlder,
  onLoadOlder,
}: {
  children: ReactNode;
  /** Changes whenever the newest entry changes (count, streamed length). */
  followKey: string;
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
}) {
  const viewport = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = viewport.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [followKey]);

  return (
    <ScrollArea h="min(60vh, 560px)" viewportRef={viewport} type="auto" data-testid="thread-messages">
      <Stack gap="sm" p="xs">
        {hasOlder && (
          <Center>
            <Button size="compact-xs" variant="subtle" loading={loadingOlder} onClick={onLoadOlder}>
              Show earlier messages
            </Button>
          </Center>
        )}
        {children}
      </Stack>
    </ScrollArea>
  );
}
