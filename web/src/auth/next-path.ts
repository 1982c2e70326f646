/** The query parameter of /login that names the page to open after signing in. */
const NEXT_PARAM = 'next';
/** Any origin will do: a path is resolved against it, and one that leaves it is refused. */
const PROBE_ORIGIN = 'https://next-path.invalid';

/**
 * The page to return to after signing in, from `/login?next=…`: only a path of this site (a
 * relative path starting with one `/`); a full address, `//host`, `/\host` or anything that
 * resolves elsewhere is ignored, so the sign-in page cannot send anyone to another site.
 */
export function safeNextPath(raw: string | null): string | null {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return null;
  // Tabs and newlines are dropped by URL parsers and could hide a `//`.
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw, PROBE_ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== PROBE_ORIGIN || url.pathname === '/login') return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The next page named by a /login query string. */
export function nextPathOf(search: string): string | null {
  return safeNextPath(new URLSearchParams(search).get(NEXT_PARAM));
}

/** /login, carrying the page a signed-out visitor asked for (none for the site root). */
export function loginPathFor(location: { pathname: string; search: string; hash: string }): string {
  const requested = `${location.pathname}${location.search}${location.hash}`;
  if (location.pathname === '/' || safeNextPath(requested) === null) return '/login';
  return `/login?${new URLSearchParams({ [NEXT_PARAM]: requested }).toString()}`;
}
