import type { MessageDto } from '@contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { conversationKeys, newIdempotencyKey } from '../../../conversations/conversations.api';
import { streamReply } from '../../../conversations/reply-stream';
import { addThreadMessages } from '../../../conversations/thread';

/** A message on its way: the Specialist's reply as streamed so far. */
export interface LiveReply {
  conversationId: string;
  /** The key of the reply's bubble, the same from the first word to the stored reply (it grows in place). */
  key: string;
  /** The client's message once stored. */
  question: MessageDto | null;
  /** The reply's text so far; emptied when an attempt is retried. */
  text: string;
  /** The stored reply, once it arrived: it stands in the thread instead of `text`. */
  reply: MessageDto | null;
}

export interface ReplyProblem {
  conversationId: string;
  message: string;
}

function problemText(code: string, message: string): string {
  // The client sees the Specialist only (spec 1): no word about who is told behind it.
  if (code === 'agent_failure') return 'Your Specialist could not answer just now. Someone from the team has been told and will follow up here.';
  return message;
}

let replies = 0;

/**
 * Sends client messages through the streaming endpoint: the message goes into the thread as soon
 * as it is stored (the send then counts as done: the box empties), the reply's text grows as it is
 * written, and the stored reply takes its place in the same bubble. Everything is written into the
 * cached thread and lists: a message costs no reload. One message at a time.
 */
export function useReplyStream() {
  const queryClient = useQueryClient();
  const [live, setLive] = useState<LiveReply | null>(null);
  const [problem, setProblem] = useState<ReplyProblem | null>(null);
  const controller = useRef<AbortController | null>(null);
  /** Stored replies that were streamed, and the key of their bubble. */
  const replyKeys = useRef(new Map<string, string>());
  /**
   * The message sent from this page to each conversation whose reply is not announced yet: kept
   * after its stream ends, so a thread shown only after a fast reply still announces it, once.
   */
  const [unannounced, setUnannounced] = useState<ReadonlyMap<string, MessageDto>>(() => new Map());

  useEffect(() => () => controller.current?.abort(), []);

  const send = useCallback(
    (conversationId: string, content: string): Promise<boolean> =>
      new Promise<boolean>((resolve) => {
        const abort = new AbortController();
        controller.current = abort;
        const key = `reply-${++replies}`;
        let stored = false;
        const update = (change: (current: LiveReply) => Partial<LiveReply>) => setLive((current) => (current?.key === key ? { ...current, ...change(current) } : current));
        setProblem(null);
        setLive({ conversationId, key, question: null, text: '', reply: null });
        streamReply(
          conversationId,
          { content },
          {
            onMessage: (message) => {
              stored = true;
              setUnannounced((current) => new Map(current).set(conversationId, message));
              addThreadMessages(queryClient, conversationId, [message]);
              update(() => ({ question: message }));
              resolve(true);
            },
            onDelta: (text) => update((current) => ({ text: current.text + text })),
            onRetry: () => update(() => ({ text: '' })),
            onReply: (message) => {
              replyKeys.current.set(message.id, key);
              addThreadMessages(queryClient, conversationId, [message]);
              update(() => ({ reply: message }));
            },
            onError: (error) => setProblem({ conversationId, message: problemText(error.code, error.message) }),
          },
          { idempotencyKey: newIdempotencyKey(), signal: abort.signal },
        )
          .catch((error: unknown) => {
            if (abort.signal.aborted) return;
            const message = error instanceof Error ? error.message : 'The message could not be sent.';
            setProblem({ conversationId, message: stored ? `${message} The reply will show here once it is ready.` : message });
            // The reply may still be made: the stored thread is read again, once.
            if (stored) void queryClient.invalidateQueries({ queryKey: conversationKeys.thread(conversationId) });
          })
          .finally(() => {
            if (controller.current === abort) controller.current = null;
            setLive((current) => (current?.key === key ? null : current));
            resolve(stored);
          });
      }),
    [queryClient],
  );

  const keyOf = useCallback((messageId: string) => replyKeys.current.get(messageId), []);
  /** The message sent from this page whose reply the conversation's thread has still to announce. */
  const awaitingAnnouncement = useCallback((conversationId: string) => unannounced.get(conversationId) ?? null, [unannounced]);
  /** The thread announced the reply to this message: never again, even in a thread shown later. */
  const announced = useCallback(
    (conversationId: string, messageId: string) =>
      setUnannounced((current) => {
        if (current.get(conversationId)?.id !== messageId) return current;
        const next = new Map(current);
        next.delete(conversationId);
        return next;
      }),
    [],
  );

  return { live, problem, send, keyOf, awaitingAnnouncement, announced, dismissProblem: () => setProblem(null) };
}

export type ReplyStream = ReturnType<typeof useReplyStream>;
