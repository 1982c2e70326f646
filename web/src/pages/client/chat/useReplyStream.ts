import type { MessageDto } from '@contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { conversationKeys, newIdempotencyKey } from '../../../conversations/conversations.api';
import { streamReply } from '../../../conversations/reply-stream';
import { addMessages, conversationChanged } from '../../../conversations/thread';

/** A message on its way: the Specialist's reply as streamed so far. */
export interface LiveReply {
  conversationId: string;
  /** The client's message once stored. */
  question: MessageDto | null;
  /** The reply's text so far; emptied when an attempt is retried. */
  text: string;
  /** The stored reply arrived: it stands in the thread instead of `text`. */
  replied: boolean;
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

/**
 * Sends client messages through the streaming endpoint: the message goes into the thread as soon
 * as it is stored, the reply's text grows as it is written, and the stored reply replaces it.
 * One message at a time.
 */
export function useReplyStream() {
  const queryClient = useQueryClient();
  const [live, setLive] = useState<LiveReply | null>(null);
  const [problem, setProblem] = useState<ReplyProblem | null>(null);
  const controller = useRef<AbortController | null>(null);

  useEffect(() => () => controller.current?.abort(), []);

  const send = useCallback(
    async (conversationId: string, content: string): Promise<boolean> => {
      const abort = new AbortController();
      controller.current = abort;
      let stored = false;
      const update = (change: (current: LiveReply) => Partial<LiveReply>) =>
        setLive((current) => (current?.conversationId === conversationId ? { ...current, ...change(current) } : current));
      setProblem(null);
      setLive({ conversationId, question: null, text: '', replied: false });
      try {
        await streamReply(
          conversationId,
          { content },
          {
            onMessage: (message) => {
              stored = true;
              addMessages(queryClient, conversationId, [message]);
              update(() => ({ question: message }));
            },
            onDelta: (text) => update((current) => ({ text: current.text + text })),
            onRetry: () => update(() => ({ text: '' })),
            onReply: (message) => {
              addMessages(queryClient, conversationId, [message]);
              update(() => ({ text: '', replied: true }));
            },
            onError: (error) => setProblem({ conversationId, message: problemText(error.code, error.message) }),
          },
          { idempotencyKey: newIdempotencyKey(), signal: abort.signal },
        );
      } catch (error) {
        if (!abort.signal.aborted) {
          const message = error instanceof Error ? error.message : 'The message could not be sent.';
          setProblem({ conversationId, message: stored ? `${message} The reply will show here once it is ready.` : message });
        }
      } finally {
        if (controller.current === abort) controller.current = null;
        setLive(null);
        // The stored thread is the truth: status and order may have moved meanwhile.
        void queryClient.invalidateQueries({ queryKey: conversationKeys.thread(conversationId) });
        conversationChanged(queryClient, null, conversationId);
      }
      return stored;
    },
    [queryClient],
  );

  return { live, problem, send, dismissProblem: () => setProblem(null) };
}

export type ReplyStream = ReturnType<typeof useReplyStream>;
