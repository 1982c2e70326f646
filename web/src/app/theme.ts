import { Alert, Anchor, createTheme, Modal, NavLink, Notification, darken, DEFAULT_THEME, luminance, type CSSVariablesResolver } from '@mantine/core';

/** WCAG AA for body text: every colour the theme uses for words reaches it on white and on its light tint. */
const MIN_CONTRAST = 4.6;

const contrast = (a: string, b: string): number => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
};

/** `color` darkened in small steps until it reads on every one of `backgrounds`. */
function readableOn(color: string, ...backgrounds: string[]): string {
  let result = color;
  for (let step = 1; backgrounds.some((background) => contrast(result, background) < MIN_CONTRAST) && step <= 20; step += 1) result = darken(color, step * 0.05);
  return result;
}

export const theme = createTheme({
  primaryColor: 'indigo',
  // Filled buttons and badges: a darker shade than Mantine's default, and black words on the light
  // fills (teal, yellow, orange), white on the dark ones; either way at least 4.5:1.
  primaryShade: 8,
  autoContrast: true,
  luminanceThreshold: 0.18,
  components: {
    // A link in a sentence is told apart by more than its colour (WCAG 1.4.1).
    Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }),
    // The active link's description is not faded (Mantine's 0.9 opacity drops dimmed words below AA on its tint).
    NavLink: NavLink.extend({ styles: { description: { opacity: 1 } } }),
    // Every close button (the × of dialogs, toasts and dismissible alerts) has a name a screen reader says.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Notification: Notification.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Alert: Alert.extend({ defaultProps: { closeButtonLabel: 'Close' } }),
  },
});

/**
 * Words in colour (`c="red"`, light badges and alerts, field errors, dimmed hints) darkened where
 * Mantine's defaults fall below AA contrast on white.
 */
export const cssVariablesResolver: CSSVariablesResolver = () => {
  const light: Record<string, string> = {
    // Also on the tinted chat bubbles (own: the primary colour's light tint; internal notes: yellow).
    '--mantine-color-dimmed': readableOn(DEFAULT_THEME.colors.gray[6], DEFAULT_THEME.colors.gray[1], DEFAULT_THEME.colors[theme.primaryColor ?? 'indigo']![1], DEFAULT_THEME.colors.yellow[1]),
    '--mantine-color-error': readableOn(DEFAULT_THEME.colors.red[8], DEFAULT_THEME.colors.red[1]),
  };
  for (const [name, shades] of Object.entries(DEFAULT_THEME.colors)) {
    if (name === 'dark') continue;
    light[`--mantine-color-${name}-text`] = readableOn(shades[8], shades[1]);
    // On the light background and on its hover shade.
    light[`--mantine-color-${name}-light-color`] = readableOn(shades[9], shades[2]);
    // Outline buttons and badges: words in the colour on white (and on the faint hover tint).
    light[`--mantine-color-${name}-outline`] = readableOn(shades[8], '#ffffff', shades[0]);
  }
  return { variables: {}, light, dark: {} };
};
