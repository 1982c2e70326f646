import { DEMO, SCREEN_SIZES, type DemoEmail, type DemoIds, type ScreenSize } from './screens.js';

/**
 * The README's screenshots (`npm run screenshots` writes them; readme-screenshots.browser checks
 * that README shows exactly these files, and that each is there): each page at a laptop's size,
 * and at a phone's size either as it opens or with the navigation menu open.
 */

export const SCREENSHOT_DIR = 'docs/screenshots';
export const SCREENSHOT_SIZES: readonly ScreenSize[] = SCREEN_SIZES.filter((size) => size.name === 'laptop' || size.name === 'phone');

export interface Shot {
  name: string;
  user: DemoEmail | null;
  path: (ids: Pick<DemoIds, 'queueConversationId' | 'clientConversationId'>) => string;
  /** The phone's picture shows the navigation menu open instead of the page. */
  menuOnPhone?: true;
}

export const SHOTS: readonly Shot[] = [
  { name: 'sign-in', user: null, path: () => '/login' },
  { name: 'client-chat', user: DEMO.orgAdmin, path: (ids) => `/client/chat?conversation=${ids.clientConversationId}` },
  { name: 'workspace-queue', user: DEMO.expert, path: () => '/workspace/queue', menuOnPhone: true },
  { name: 'workspace-thread', user: DEMO.expert, path: (ids) => `/workspace/queue/${ids.queueConversationId}` },
  { name: 'ops-clients', user: DEMO.accountManager, path: () => '/ops/clients' },
  { name: 'ops-specialists', user: DEMO.superadmin, path: () => '/ops/specialists' },
  { name: 'ops-analytics', user: DEMO.superadmin, path: () => '/ops/analytics' },
];

/** The file of `shot` at `size` (its name inside SCREENSHOT_DIR). */
export function shotFile(shot: Shot, size: ScreenSize): string {
  return `${shot.name}-${size.name}${size.name === 'phone' && shot.menuOnPhone ? '-menu' : ''}.png`;
}

/** Every file `npm run screenshots` writes. */
export const SHOT_FILES: readonly string[] = SHOTS.flatMap((shot) => SCREENSHOT_SIZES.map((size) => shotFile(shot, size)));
