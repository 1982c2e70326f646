import { z } from 'zod';

const HTTP_PROTOCOL = /^https?$/;

export const HTTP_URL_MESSAGE = 'Must be an http:// or https:// URL';

/**
 * A web address that people follow or browsers load (a website, a logo, an avatar): http or
 * https only, so a stored value can never be a `javascript:`, `data:`, `file:` or `ftp:` link.
 * The one URL field of every contract; the scheme is checked on the parsed URL, so case, tabs
 * and leading spaces change nothing.
 */
export const httpUrl = (max = 2048) =>
  z
    .string()
    .trim()
    .max(max)
    .pipe(z.url({ protocol: HTTP_PROTOCOL, hostname: z.regexes.hostname, error: HTTP_URL_MESSAGE }));
