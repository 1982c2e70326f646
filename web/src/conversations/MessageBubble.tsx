import { Avatar, Badge, Button, Center, Divider, Group, Paper, ScrollArea, Stack, Text } from '@mantine/core';
import type { MessageDto } from '@contracts';
import { useEffect, useRef, type ReactNode } from 'react';
import { formatDateTime } from '../ops/format';
import { Attachments } from './Attachments';
import { dayLabel, exactTime, relativeTime, useNow } from './time';

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
  /** Who wrote it, as a picture: beside the bubble, on its side. */
  avatar?: ReactNode;
}

/** A person's or Specialist's picture: the image when there is one, the initials of the name otherwise. */
export function PersonAvatar({ name, src, size = 32 }: { name: string; src?: string | null; size?: number }) {
  return <Avatar src={src ?? null} alt="" name={name} color="initials" size={size} aria-hidden="true" data-testid="avatar" data-name={name} data-image={Boolean(src)} />;
}

/** A time as "5 min. ago", with the exact time on hover. */
export function RelativeTime({ iso, size = 'xs' }: { iso: string; size?: 'xs' | 'sm' }) {
  const now = useNow();
  return (
    <Text component="time" size={size} c="dimmed" dateTime={iso} title={exactTime(iso)} data-testid="relative-time" style={{ whiteSpace: 'nowrap' }}>
      {relativeTime(iso, now)}
    </Text>
  );
}

/** The line between the messages of two days: "Today", "Yesterday", a date. */
export function DaySeparator({ iso }: { iso: string }) {
  const now = useNow();
  return (
    <Divider
      my={4}
      labelPosition="center"
      label={
        <Text component="span" size="xs" c="dimmed" fw={500}>
          {dayLabel(iso, now)}
        </Text>
      }
      role="separator"
      data-testid="day-separator"
    />
  );
}

/** One entry of a thread: who, when, what. */
export function Bubble({ side, tone, author, badges, time, content, attachments, footer, data, avatar }: BubbleProps) {
  return (
    <Group justify={JUSTIFY[side]} wrap="nowrap" align="flex-end" gap="xs">
      {side === 'start' && avatar}
      <Paper withBorder p="sm" radius="md" maw={side === 'center' ? '90%' : '80%'} miw={0} bg={TONE_BACKGROUNDS[tone]} {...data}>
        <Group gap="xs" justify="space-between" wrap="wrap" mb={4}>
          <Group gap="xs" wrap="wrap">
            <Text size="xs" fw={600} data-testid="message-author">
              {author}
            </Text>
            {badges}
          </Group>
          {time && <RelativeTime iso={time} />}
        </Group>
        <Text size="sm" fs={tone === 'system' ? 'italic' : undefined} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="message-content">
          {content}
        </Text>
        {attachments}
        {footer}
      </Paper>
      {side === 'end' && avatar}
    </Group>
  );
}

type StoredParts = Pick<BubbleProps, 'badges' | 'time' | 'content' | 'attachments' | 'data'>;

/** What a bubble shows of a stored message: its id, role and flags as data attributes; a corrected one says so. */
export function storedMessageParts(message: MessageDto, badges?: ReactNode): StoredParts {
  return {
    badges: (
      <>
        {badges}
        {message.correctedAt && (
          <Badge size="xs" variant="light" color="gray" title={`Corrected ${formatDateTime(message.correctedAt)}`} data-testid="message-corrected">
            corrected
          </Badge>
        )}
      </>
    ),
    time: message.createdAt,
    content: message.content,
    attachments: <Attachments attachments={message.attachments} />,
    data: {
      'data-testid': 'message',
      'data-id': message.id,
      'data-role': message.role,
      'data-internal': message.is_internal,
      'data-corrected': message.correctedAt !== null,
    },
  };
}

/** The bubble of a stored message. */
export function MessageBubble({ message, badges, ...props }: Omit<BubbleProps, 'content' | 'time' | 'data' | 'attachments'> & { message: MessageDto }) {
  return <Bubble {...props} {...storedMessageParts(message, badges)} />;
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
  fill = false,
}: {
  children: ReactNode;
  /** Take the height the parent (a flex column) leaves, instead of a fixed one. */
  fill?: boolean;
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
    <ScrollArea
      h={fill ? undefined : 'min(60vh, 560px)'}
      style={fill ? { flex: 1, minHeight: 0 } : undefined}
      viewportRef={viewport}
      // A keyboard scrolls the messages too: the region takes the focus (WCAG 2.1.1), and says what it is.
      viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Messages' }}
      type="auto"
      data-testid="thread-messages"
    >
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
