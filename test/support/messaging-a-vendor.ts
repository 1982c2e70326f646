import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { closeServer, listenOn, recordingServer, type RecordedCall } from './recording-server.js';

/**
 * A loopback stand-in for messaging-a's REST API (Twilio), answering as its documentation says:
 * `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` (HTTP Basic of that very account, a form
 * with `To`, `From` and `Body`, `From` one of that account's numbers and of the same kind as `To`)
 * answers 201 with a Message resource, else the vendor's error; a media URL
 * (`/2010-04-01/Accounts/{AccountSid}/Messages/{MessageSid}/Media/{MediaSid}`) needs the account's
 * Basic auth and redirects to a media CDN on another host (`127.0.0.2:<port>`), which serves the
 * bytes. Every call is recorded; every departure from that shape is listed in `violations`.
 */
export interface MessagingAVendor {
  /** The REST API's origin (the contract tests set MESSAGING_A_API_BASE_URL to `<url>/2010-04-01`). */
  url: string;
  /** The media CDN's origin, another host than the API. */
  cdnUrl: string;
  calls: RecordedCall[];
  cdnCalls: RecordedCall[];
  violations: string[];
  addAccount(sid: string, authToken: string, numbers: string[]): void;
  /** Stores a media file of a message; answers its media URL on the API. */
  addMedia(accountSid: string, messageSid: string, mediaSid: string, body: Buffer, contentType: string): string;
  /** The message sends (POST .../Messages.json) the stand-in accepted. */
  sent(): Array<RecordedCall & { form: URLSearchParams }>;
  close(): Promise<void>;
}

const FIXTURES = new URL('../fixtures/vendors/twilio/', import.meta.url);
export const twilioFixture = <T = Record<string, string>>(name: string): T => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as T;

const MESSAGES = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/;
const MEDIA = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\/[^/]+\/Media\/([^/.]+)$/;

function basic(header: string | undefined): { user: string; password: string } | undefined {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? '');
  if (!m) return undefined;
  const [user, ...rest] = Buffer.from(m[1]!, 'base64').toString('utf8').split(':');
  return { user: user!, password: rest.join(':') };
}

export async function startMessagingAVendor(): Promise<MessagingAVendor> {
  const accounts = new Map<string, { token: string; numbers: string[] }>();
  const media = new Map<string, { body: Buffer; contentType: string }>();
  const calls: RecordedCall[] = [];
  const cdnCalls: RecordedCall[] = [];
  const violations: string[] = [];
  let sequence = 0;

  const json = (res: ServerResponse, status: number, payload: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  };
  const refuse = (res: ServerResponse, status: number, code: number, message: string) => {
    violations.push(`${status} ${code}: ${message}`);
    json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
  };
  const authorized = (call: RecordedCall, sid: string) => {
    const credentials = basic(call.headers.authorization);
    const account = accounts.get(sid);
    return Boolean(credentials && account && credentials.user === sid && credentials.password === account.token);
  };

  const api = (call: RecordedCall, res: ServerResponse) => {
    const send = MESSAGES.exec(call.path);
    if (send && call.method === 'POST') {
      const sid = decodeURIComponent(send[1]!);
      if (!authorized(call, sid)) return refuse(res, 401, 20003, 'Authenticate');
      if (!/^application\/x-www-form-urlencoded\b/.test(call.headers['content-type'] ?? '')) return refuse(res, 400, 21601, 'the body is not form-encoded');
      const form = new URLSearchParams(call.body);
      const [to, from, body] = [form.get('To'), form.get('From'), form.get('Body')];
      if (!to) return refuse(res, 400, 21604, "A 'To' phone number is required.");
      if (!from) return refuse(res, 400, 21603, "A 'From' phone number is required.");
      if (!body) return refuse(res, 400, 21602, 'Message body is required.');
      if (!accounts.get(sid)!.numbers.includes(from)) return refuse(res, 400, 21606, `The From phone number ${from} is not a valid, message-capable phone number for this account.`);
      if (to.startsWith('whatsapp:') !== from.startsWith('whatsapp:')) return refuse(res, 400, 63007, 'To and From must both be WhatsApp addresses, or neither.');
      const created = twilioFixture<Record<string, unknown>>('message-created.json');
      const messageSid = `SM${String(++sequence).padStart(32, '0')}`;
      return json(res, 201, {
        ...created,
        sid: messageSid,
        account_sid: sid,
        to,
        from,
        body,
        uri: `/2010-04-01/Accounts/${sid}/Messages/${messageSid}.json`,
        subresource_uris: { media: `/2010-04-01/Accounts/${sid}/Messages/${messageSid}/Media.json` },
      });
    }
    const file = MEDIA.exec(call.path);
    if (file && call.method === 'GET') {
      const sid = decodeURIComponent(file[1]!);
      if (!authorized(call, sid)) return refuse(res, 401, 20003, 'Authenticate');
      if (!media.has(file[2]!)) return refuse(res, 404, 20404, 'The requested resource was not found');
      // Media with HTTP Basic authentication enforced: a short-lived URL on the media CDN.
      res.writeHead(307, { location: `${vendor.cdnUrl}/v1/${file[2]}?Expires=${Math.floor(Date.now() / 1000) + 14_400}&Signature=stand-in` });
      return res.end();
    }
    refuse(res, 404, 20404, `no such resource: ${call.method} ${call.path}`);
  };

  const cdn = (call: RecordedCall, res: ServerResponse) => {
    const id = /^\/v1\/([^/?]+)\?/.exec(call.path)?.[1];
    const file = id ? media.get(id) : undefined;
    if (call.headers.authorization) violations.push(`the media CDN received credentials: ${call.headers.authorization.split(' ')[0]} ...`);
    if (!file) return refuse(res, 404, 20404, `no media at ${call.path}`);
    res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.body.length) });
    res.end(file.body);
  };

  const apiServer = recordingServer(calls, api);
  const cdnServer = recordingServer(cdnCalls, cdn);

  const vendor: MessagingAVendor = {
    url: `http://127.0.0.1:${await listenOn(apiServer, '127.0.0.1')}`,
    // Another loopback address: another host, as the vendor's CDN is.
    cdnUrl: `http://127.0.0.2:${await listenOn(cdnServer, '127.0.0.2')}`,
    calls,
    cdnCalls,
    violations,
    addAccount: (sid, token, numbers) => void accounts.set(sid, { token, numbers }),
    addMedia: (accountSid, messageSid, mediaSid, body, contentType) => {
      media.set(mediaSid, { body, contentType });
      return `${vendor.url}/2010-04-01/Accounts/${accountSid}/Messages/${messageSid}/Media/${mediaSid}`;
    },
    sent: () => calls.filter((c) => c.method === 'POST' && MESSAGES.test(c.path)).map((c) => ({ ...c, form: new URLSearchParams(c.body) })),
    close: async () => {
      await Promise.all([closeServer(apiServer), closeServer(cdnServer)]);
    },
  };
  return vendor;
}
