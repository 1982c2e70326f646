import { Box, Button, Paper, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { CONVERSATION_STATUSES } from '@contracts';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useLayoutEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { ConversationFilter } from '../../conversations/conversations.api';
import { Page } from '../../layout/Page';
import { ClientThread } from './chat/ClientThread';
import { ConversationList, conversationListQuery } from './chat/ConversationList';
import { NewConversation } from './chat/NewConversation';
import { useReplyStream } from './chat/useReplyStream';
import { TrialBanner } from './TrialBanner';

/** The address of the chat: the open thread (or `new`), the list's status filter and search, the Specialist of a new thread. */
const PARAMS = { conversation: 'conversation', status: 'status', query: 'q', specialist: 'specialist' } as const;
const NEW = 'new';
/** Below this width the list and the thread take turns. */
const PHONE = '(max-width: 48em)';
/** Never smaller than this: on a very short window the page scrolls instead. */
const MIN_HEIGHT_PX = 360;

const filterOf = (value: string | null): ConversationFilter => (CONVERSATION_STATUSES.includes(value as never) ? (value as ConversationFilter) : 'all');

/**
 * The height from the element's top to the bottom of the window (less the shell's bottom
 * padding): the chat fills the window below the header, whatever sits above it.
 */
function useFillHeight<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [height, setHeight] = useState<number | null>(null);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => {
      const top = element.getBoundingClientRect().top + window.scrollY;
      const padding = parseFloat(getComputedStyle(element.closest('main') ?? document.body).paddingBottom) || 0;
      setHeight(Math.max(MIN_HEIGHT_PX, Math.floor(window.innerHeight - top - padding)));
    };
    measure();
    // What sits above (a banner that loads, a wrapped header) moves the top.
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, []);
  return { ref, height };
}

/**
 * `/client/chat`: the client's threads and the open one, filling the window below the header. On a
 * phone the list and the open thread take turns (the thread has a Back control). The address keeps
 * the open thread, the filter and the search, so back, forward and reload keep them.
 */
export function ChatPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const selected = searchParams.get(PARAMS.conversation);
  const filter = filterOf(searchParams.get(PARAMS.status));
  const query = searchParams.get(PARAMS.query) ?? '';
  const phone = useMediaQuery(PHONE, false, { getInitialValueInEffect: false });
  const { ref, height } = useFillHeight<HTMLDivElement>();
  // Kept here, above the thread: a first message keeps streaming once its new thread opens.
  const stream = useReplyStream();
  // A client with no conversation yet is welcomed by its Specialist rather than an empty list.
  const all = useInfiniteQuery({ ...conversationListQuery('all'), enabled: selected === null });
  const firstVisit = all.data !== undefined && all.data.pages.every((page) => page.items.length === 0);

  const change = (next: Partial<Record<keyof typeof PARAMS, string | null>>, replace = false) => {
    setSearchParams(
      (current) => {
        const params = new URLSearchParams(current);
        for (const [name, value] of Object.entries(next)) {
          const param = PARAMS[name as keyof typeof PARAMS];
          if (value === null || value === '' || (name === 'status' && value === 'all')) params.delete(param);
          else params.set(param, value);
        }
        return params;
      },
      { replace },
    );
  };
  const open = (id: string, replace = false) => change({ conversation: id, ...(id !== NEW && { specialist: null }) }, replace);
  const back = () => change({ conversation: null, specialist: null });

  const showNew = selected === NEW || (selected === null && firstVisit);
  const threadPane = showNew ? (
    <NewConversation
      stream={stream}
      onCreated={(id) => open(id, true)}
      assignmentId={searchParams.get(PARAMS.specialist)}
      onChooseSpecialist={(assignmentId) => change({ conversation: NEW, specialist: assignmentId }, true)}
      onBack={phone && selected !== null ? back : undefined}
    />
  ) : selected ? (
    <ClientThread key={selected} conversationId={selected} stream={stream} onBack={phone ? back : undefined} />
  ) : (
    <Paper withBorder p="xl" h="100%" data-testid="no-conversation-open">
      <Stack align="center" gap="sm">
        <Text c="dimmed">Open a conversation, or start a new one with your Specialist.</Text>
        <Button onClick={() => open(NEW)}>New conversation</Button>
      </Stack>
    </Paper>
  );
  const listPane = (
    <ConversationList
      selectedId={selected}
      onSelect={(id) => open(id)}
      onNew={() => open(NEW)}
      filter={filter}
      onFilter={(next) => change({ status: next })}
      query={query}
      onQuery={(next) => change({ query: next }, true)}
    />
  );
  // On a phone: the thread when one is open (or the welcome), else the list.
  const phoneShowsThread = selected !== null || firstVisit;

  return (
    <Page title="Chat">
      <TrialBanner />
      <Box
        ref={ref}
        h={height ?? undefined}
        style={{ display: 'flex', gap: 'var(--mantine-spacing-md)', minHeight: 0, visibility: height === null ? 'hidden' : undefined }}
        data-testid="chat-panes"
        data-layout={phone ? 'single' : 'split'}
      >
        {phone ? (
          <Box style={{ flex: 1, minWidth: 0, minHeight: 0 }}>{phoneShowsThread ? threadPane : listPane}</Box>
        ) : (
          <>
            <Box style={{ flex: '0 0 clamp(260px, 32%, 380px)', minWidth: 0, minHeight: 0 }}>{listPane}</Box>
            <Box style={{ flex: 1, minWidth: 0, minHeight: 0 }}>{threadPane}</Box>
          </>
        )}
      </Box>
    </Page>
  );
}
