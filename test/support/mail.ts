import type { DevMailItem } from '../../src/contracts/auth.js';

const WAIT_MS = 15_000;
const POLL_MS = 250;

/** The development outbox (`GET /api/dev/mail`), newest first. */
export async function listMail(baseUrl: string, to: string): Promise<DevMailItem[]> {
  const response = await fetch(`${baseUrl}/api/dev/mail?to=${encodeURIComponent(to)}&limit=20`);
  if (response.status !== 200) throw new Error(`GET /api/dev/mail answered ${response.status}`);
  return (await response.json()) as DevMailItem[];
}

/** The newest mail to `to` that `matches`, waiting for it to arrive. */
export async function waitForMail(baseUrl: string, to: string, matches: (mail: DevMailItem) => boolean, what: string): Promise<DevMailItem> {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const found = (await listMail(baseUrl, to)).find(matches);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`no mail ${what} reached ${to}`);
}

const codeOf = (mail: DevMailItem): string | undefined => mail.text.match(/\b(\d{6})\b/)?.[1];

/** The 6-digit code of the first mail to `to` that was not in the outbox before. */
export async function waitForMailedCode(baseUrl: string, to: string, seenIds: ReadonlySet<string>): Promise<string> {
  const mail = await waitForMail(baseUrl, to, (m) => !seenIds.has(m.id) && codeOf(m) !== undefined, 'with a 6-digit code');
  return codeOf(mail)!;
}

/** The ids already in the outbox of `to`, so that a later wait finds only new mail. */
export async function seenMailIds(baseUrl: string, to: string): Promise<Set<string>> {
  return new Set((await listMail(baseUrl, to)).map((mail) => mail.id));
}

/** Runs `send` and waits for the 6-digit code it mails to `to` (codes may go out from a queued job). */
export async function codeMailedBy(baseUrl: string, to: string, send: () => Promise<unknown>): Promise<string> {
  const seenIds = await seenMailIds(baseUrl, to);
  await send();
  return waitForMailedCode(baseUrl, to, seenIds);
}
