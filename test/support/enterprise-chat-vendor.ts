import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { closeServer, listenOn, recordingServer, type RecordedCall } from './recording-server.js';

/**
 * A loopback stand-in for enterprise-chat's vendor side (Microsoft Teams through the Bot
 * Framework), answering as its documentation says: the OpenID metadata and key set the channel's
 * tokens are signed with (keys endorsed for `msteams`); the token endpoint of the bot's client
 * credentials (`grant_type=client_credentials`, the bot's app id and password, scope
 * `https://api.botframework.com/.default`); the connector under `<url>/emea/` (replies
 * `POST v3/conversations/{id}/activities/{replyToId}` with that token and an Activity; inline
 * images `GET v3/attachments/{id}/views/original` with that token); and a file host on another
 * address (`127.0.0.2`) serving pre-authenticated download URLs, which never needs a token.
 * Every call is recorded; every departure from that shape is listed in `violations`.
 */
export interface EnterpriseChatVendor {
  url: string;
  /** The connector's serviceUrl, as the channel names it (with its trailing slash). */
  serviceUrl: string;
  metadataUrl: string;
  tokenUrl: string;
  /** The file host of shared files (pre-authenticated download URLs). */
  filesUrl: string;
  issuer: string;
  calls: RecordedCall[];
  fileCalls: RecordedCall[];
  violations: string[];
  /** The connector tokens the token endpoint gave out. */
  issued: string[];
  /**
   * A channel-to-bot bearer token with the documented claims, signed with the endorsed key; its
   * times are current (nbf a minute back, exp in an hour) at `times.now` (the service's clock when a
   * test moved it), unless `times` gives `nbf` or `exp` (epoch seconds) itself.
   */
  channelToken(claims?: Record<string, unknown>, times?: TokenTimes): Promise<string>;
  addImage(id: string, body: Buffer): string;
  addFile(name: string, body: Buffer): string;
  replies(): Array<RecordedCall & { activity: Record<string, unknown> }>;
  close(): Promise<void>;
}

export interface TokenTimes {
  now?: Date;
  nbf?: number;
  exp?: number;
}

const FIXTURES = new URL('../fixtures/vendors/teams/', import.meta.url);
export const teamsFixture = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as T;

const REPLY = /^\/emea\/v3\/conversations\/([^/]+)\/activities\/([^/]+)$/;
const IMAGE = /^\/emea\/v3\/attachments\/([^/]+)\/views\/original$/;
export const CONNECTOR_SCOPE = 'https://api.botframework.com/.default';

export async function startEnterpriseChatVendor(app: { id: string; password: string }): Promise<EnterpriseChatVendor> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `bf-${randomBytes(6).toString('hex')}`;
  const jwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', kty: 'RSA', endorsements: ['msteams'] };
  const images = new Map<string, Buffer>();
  const files = new Map<string, Buffer>();
  const calls: RecordedCall[] = [];
  const fileCalls: RecordedCall[] = [];
  const violations: string[] = [];
  const issued: string[] = [];

  const json = (res: ServerResponse, status: number, payload: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(payload));
  };
  const refuse = (res: ServerResponse, status: number, what: string) => {
    violations.push(`${status}: ${what}`);
    json(res, status, { error: { code: status === 401 ? 'Unauthorized' : 'BadArgument', message: what } });
  };
  const bearerOk = (call: RecordedCall) => {
    const m = /^Bearer (\S+)$/.exec(call.headers.authorization ?? '');
    return Boolean(m && issued.includes(m[1]!));
  };

  const api = (call: RecordedCall, res: ServerResponse) => {
    if (call.method === 'GET' && call.path === '/v1/.well-known/openidconfiguration') {
      return json(res, 200, { ...teamsFixture<Record<string, unknown>>('openid-configuration.json'), jwks_uri: `${vendor.url}/v1/.well-known/keys` });
    }
    if (call.method === 'GET' && call.path === '/v1/.well-known/keys') return json(res, 200, { keys: [jwk] });
    if (call.method === 'POST' && call.path === '/botframework.com/oauth2/v2.0/token') {
      if (!/^application\/x-www-form-urlencoded\b/.test(call.headers['content-type'] ?? '')) return refuse(res, 400, 'the token request is not form-encoded');
      const form = new URLSearchParams(call.body);
      if (form.get('grant_type') !== 'client_credentials') return refuse(res, 400, `grant_type ${form.get('grant_type')}`);
      if (form.get('client_id') !== app.id || form.get('client_secret') !== app.password) return refuse(res, 401, 'invalid_client');
      if (form.get('scope') !== CONNECTOR_SCOPE) return refuse(res, 400, `scope ${form.get('scope')}`);
      const token = `connector-${randomBytes(12).toString('hex')}`;
      issued.push(token);
      return json(res, 200, { ...teamsFixture<Record<string, unknown>>('token-response.json'), access_token: token });
    }
    const reply = REPLY.exec(call.path);
    if (call.method === 'POST' && reply) {
      if (!bearerOk(call)) return refuse(res, 401, 'the reply carries no connector token');
      if (!/^application\/json\b/.test(call.headers['content-type'] ?? '')) return refuse(res, 400, 'the reply is not JSON');
      let activity: Record<string, unknown>;
      try {
        activity = JSON.parse(call.body) as Record<string, unknown>;
      } catch {
        return refuse(res, 400, 'the reply body is not JSON');
      }
      if (activity.type !== 'message' || typeof activity.text !== 'string' || !activity.text) return refuse(res, 400, 'the reply is not a message Activity with text');
      if (activity.replyToId !== decodeURIComponent(reply[2]!)) return refuse(res, 400, 'replyToId differs from the path');
      return json(res, 200, { id: `1:${randomBytes(8).toString('hex')}` });
    }
    const image = IMAGE.exec(call.path);
    if (call.method === 'GET' && image) {
      if (!bearerOk(call)) return refuse(res, 401, 'an attachment view needs the connector token');
      const body = images.get(image[1]!);
      if (!body) return refuse(res, 404, `no attachment ${image[1]}`);
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(body.length) });
      return res.end(body);
    }
    refuse(res, 404, `no such resource: ${call.method} ${call.path}`);
  };

  const fileHost = (call: RecordedCall, res: ServerResponse) => {
    // A pre-authenticated URL: its tempauth parameter is the authorization; a bearer token is refused.
    if (call.headers.authorization) return refuse(res, 401, 'the download URL received an Authorization header');
    const url = new URL(call.path, 'http://files.invalid');
    const body = url.pathname === '/_layouts/15/download.aspx' && url.searchParams.get('tempauth') ? files.get(url.searchParams.get('UniqueId') ?? '') : undefined;
    if (!body) return refuse(res, 404, `no file at ${call.path}`);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) });
    res.end(body);
  };

  const apiServer = recordingServer(calls, api);
  const filesServer = recordingServer(fileCalls, fileHost);
  const url = `http://127.0.0.1:${await listenOn(apiServer, '127.0.0.1')}`;
  const issuer = 'https://api.botframework.com';

  const vendor: EnterpriseChatVendor = {
    url,
    serviceUrl: `${url}/emea/`,
    metadataUrl: `${url}/v1/.well-known/openidconfiguration`,
    tokenUrl: `${url}/botframework.com/oauth2/v2.0/token`,
    filesUrl: `http://127.0.0.2:${await listenOn(filesServer, '127.0.0.2')}`,
    issuer,
    calls,
    fileCalls,
    violations,
    issued,
    channelToken: (claims = {}, times = {}) =>
      signChannelToken(privateKey, kid, { ...teamsFixture<Record<string, unknown>>('channel-token-claims.json'), iss: issuer, aud: app.id, serviceurl: vendor.serviceUrl, ...claims }, times),
    addImage: (id, body) => {
      images.set(id, body);
      return `${vendor.serviceUrl}v3/attachments/${id}/views/original`;
    },
    addFile: (uniqueId, body) => {
      files.set(uniqueId, body);
      return `${vendor.filesUrl}/_layouts/15/download.aspx?UniqueId=${uniqueId}&Translate=false&tempauth=${randomBytes(16).toString('hex')}&ApiVersion=2.0`;
    },
    replies: () => calls.filter((c) => c.method === 'POST' && REPLY.test(c.path)).map((c) => ({ ...c, activity: JSON.parse(c.body) as Record<string, unknown> })),
    close: async () => {
      await Promise.all([closeServer(apiServer), closeServer(filesServer)]);
    },
  };
  return vendor;
}

/** The documented claims (`serviceurl`, `iss`, `aud`, `nbf`, `exp`), the times made current (or as given). */
function signChannelToken(key: CryptoKey, kid: string, claims: Record<string, unknown>, times: TokenTimes): Promise<string> {
  const now = Math.floor((times.now ?? new Date()).getTime() / 1000);
  const { iss, aud, nbf: _nbf, exp: _exp, ...rest } = claims;
  return new SignJWT(rest)
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
    .setIssuer(String(iss))
    .setAudience(String(aud))
    .setNotBefore(times.nbf ?? now - 60)
    .setExpirationTime(times.exp ?? now + 3600)
    .sign(key);
}

/** The settings that point a deployment's enterprise-chat at the stand-in: key set, issuer, token endpoint and the bot's password (the app id is the test's to give or withhold). */
export function enterpriseChatVendorSettings(vendor: EnterpriseChatVendor, password: string): Record<string, string> {
  return { ENTERPRISE_CHAT_APP_PASSWORD: password, ENTERPRISE_CHAT_OPENID_METADATA_URL: vendor.metadataUrl, ENTERPRISE_CHAT_ISSUERS: vendor.issuer, ENTERPRISE_CHAT_TOKEN_URL: vendor.tokenUrl };
}

export type TeamsConversationType = 'personal' | 'groupChat' | 'channel';

let activitySequence = 1_715_000_000_000;

/** A message Activity as Teams sends it to the bot: a fresh id, the stand-in's serviceUrl, the tenant, the bot as recipient. */
export function messageActivity(
  vendor: Pick<EnterpriseChatVendor, 'serviceUrl'>,
  to: { tenant: string; bot: string; conversation: { id: string; type: TeamsConversationType } },
  text: string,
  over: Record<string, unknown> = {},
) {
  const { id, type } = to.conversation;
  return {
    type: 'message',
    id: String(activitySequence++),
    channelId: 'msteams',
    serviceUrl: vendor.serviceUrl,
    text,
    from: { id: '29:adele', name: 'Adele Vance' },
    recipient: { id: to.bot, name: 'Acme Specialist' },
    conversation: { id, conversationType: type, tenantId: to.tenant, ...(type === 'personal' ? {} : { isGroup: true }) },
    channelData: { tenant: { id: to.tenant } },
    ...over,
  };
}
