import { describe, expect, it } from 'vitest';
import { chatAFile, parseChatA, parseMessagingB, type ChatAEnvelope, type MessagingBUpdate } from './channels.parse.js';

const chatA = (event: Record<string, unknown>): ChatAEnvelope => ({
  type: 'event_callback',
  team_id: 'T1',
  event_id: 'Ev1',
  event: { type: 'message', user: 'U1', channel: 'C1', channel_type: 'channel', ts: '1.1', ...event },
});
const mb = (message: Record<string, unknown>): MessagingBUpdate => ({
  update_id: 1,
  message: { message_id: 5, chat: { id: -100, type: 'supergroup' }, from: { id: 7, is_bot: false, first_name: 'Ann' }, ...message },
});
const bot = { username: 'acme_bot', id: '123' };

describe('chat-a files', () => {
  it('prefers the download URL, asks files.info for a Slack Connect file, and notes what cannot be had', () => {
    expect(chatAFile({ name: 'a.pdf', mimetype: 'application/pdf', size: 10, url_private: 'https://files.slack.com/v', url_private_download: 'https://files.slack.com/d' })).toEqual([
      { name: 'a.pdf', contentType: 'application/pdf', size: 10, url: 'https://files.slack.com/d' },
    ]);
    expect(chatAFile({ id: 'F1', mode: 'file_access', file_access: 'check_file_info' })).toEqual([{ name: 'F1', contentType: 'application/octet-stream', fileId: 'F1' }]);
    expect(chatAFile({ id: 'F2', mode: 'tombstone' })[0]!.unavailable).toBe('deleted');
    expect(chatAFile({ id: 'F3', mode: 'hidden_by_limit' })[0]!.unavailable).toMatch(/plan/);
    expect(chatAFile({ id: 'F4', name: 'doc', is_external: true, external_type: 'gdrive', url_private: 'https://docs.google.com/x' })[0]!.unavailable).toBe('external file (gdrive)');
    expect(chatAFile('not a file')).toEqual([]);
  });

  it('takes thread broadcasts as messages and bot messages as bot-authored', () => {
    expect(parseChatA(chatA({ subtype: 'thread_broadcast', text: 'also here', thread_ts: '0.9' }), 'UBOT')).toMatchObject({ ok: true, message: { threadKey: 'C1:0.9' } });
    expect(parseChatA(chatA({ subtype: 'bot_message', bot_id: 'B1', user: undefined }), 'UBOT')).toEqual({ ok: false, ignore: 'bot_authored' });
    expect(parseChatA(chatA({ subtype: 'channel_join' }), 'UBOT')).toEqual({ ok: false, ignore: 'unsupported_event' });
  });
});

describe('messaging-b', () => {
  const addressed = (message: Record<string, unknown>) => {
    const parsed = parseMessagingB(mb(message), bot);
    return parsed.ok && parsed.message.addressed;
  };

  it('sees the bot named by text, entities, its commands and replies to it; not another bot', () => {
    expect(addressed({ text: 'hi @Acme_Bot' })).toBe(true);
    expect(addressed({ text: '/help', entities: [{ type: 'bot_command', offset: 0, length: 5 }] })).toBe(true);
    expect(addressed({ text: '/help@other_bot', entities: [{ type: 'bot_command', offset: 0, length: 15 }] })).toBe(false);
    expect(addressed({ text: 'Acme check', entities: [{ type: 'text_mention', offset: 0, length: 4, user: { id: 123, is_bot: true, first_name: 'Acme' } }] })).toBe(true);
    expect(addressed({ text: 'ok', reply_to_message: { from: { id: 123, is_bot: true, username: 'acme_bot' } } })).toBe(true);
    expect(addressed({ text: 'ok', reply_to_message: { from: { id: 999, is_bot: true, username: 'other_bot' } } })).toBe(false);
    expect(addressed({ text: 'hello @acme_bot_fan' })).toBe(false);
  });

  it('names each sticker kind by its format', () => {
    const kinds = [
      [{ is_animated: true, is_video: false }, 'sticker.tgs', 'application/x-tgsticker'],
      [{ is_animated: false, is_video: true }, 'sticker.webm', 'video/webm'],
      [{ is_animated: false, is_video: false }, 'sticker.webp', 'image/webp'],
    ] as const;
    for (const [flags, name, contentType] of kinds) {
      const parsed = parseMessagingB(mb({ chat: { id: 1, type: 'private' }, sticker: { file_id: 'S', ...flags } }), bot);
      expect(parsed.ok && parsed.message.attachments).toEqual([{ name, contentType, fileId: 'S' }]);
    }
  });
});
