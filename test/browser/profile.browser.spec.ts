import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSessions } from './support/sessions.js';

/**
 * The Expert's own profile used, not only shown (issue 18 "Experts' own pages"): the password is
 * changed from /workspace/profile with the form's errors where they belong, the Expert's other
 * session ends, and only the new password signs in. This file's server is its own, so the demo
 * Expert's password changes for no other test.
 */

const EXPERT_EMAIL = 'expert@platform.demo.invalid';
const OLD_PASSWORD = 'demo1234';
const NEW_PASSWORD = 'a-new-pass-phrase-1';
const TIMEOUT = 15_000;

const sessions = browserSessions({ timeout: TIMEOUT });

async function signIn(page: Page, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(EXPERT_EMAIL);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function loginStatus(password: string): Promise<number> {
  const response = await fetch(`${sessions.baseUrl}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: EXPERT_EMAIL, password }) });
  return response.status;
}

describe('the Expert changes their password on their profile', () => {
  it('refuses a wrong current password on its field, keeps the button off while the two new ones differ, then changes it: the other session ends, only the new password signs in', async () => {
    // A second device, signed in first.
    const other = await sessions.newPage();
    await other.setViewportSize({ width: 1280, height: 800 });
    await signIn(other, OLD_PASSWORD);
    await other.waitForURL((url) => url.pathname === '/workspace/queue');

    const page = await sessions.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, OLD_PASSWORD);
    await page.waitForURL((url) => url.pathname === '/workspace/queue');
    await page.goto('/workspace/profile');
    const form = page.getByRole('form', { name: 'Change password' });
    const submit = form.getByRole('button', { name: 'Change password', exact: true });

    // The new password typed twice, the current one not: said under the current one, and nothing can be sent.
    await form.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await form.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await form.getByText('Enter your current password').waitFor();
    expect(await submit.isDisabled()).toBe(true);

    // The two new passwords differ: said under the second, and nothing can be sent.
    await form.getByLabel('Current password').fill('not-my-password');
    expect(await form.getByText('Enter your current password').count()).toBe(0);
    await form.getByLabel('Repeat the new password').fill(`${NEW_PASSWORD}x`);
    await form.getByText('The two passwords differ').waitFor();
    expect(await submit.isDisabled()).toBe(true);

    // A wrong current password: the server's answer on the current password's field.
    await form.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await submit.click();
    await form.getByText('Wrong password').waitFor();
    expect(await loginStatus(OLD_PASSWORD)).toBe(200);

    await form.getByLabel('Current password').fill(OLD_PASSWORD);
    await submit.click();
    await page.getByText('Your password is changed. Other devices are signed out.').waitFor();

    // This session goes on; the other device is signed out at its next step.
    await page.goto('/workspace/notifications');
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    await other.reload();
    await other.waitForURL((url) => url.pathname === '/login');

    expect(await loginStatus(OLD_PASSWORD)).toBe(401);
    expect(await loginStatus(NEW_PASSWORD)).toBe(200);
    await signIn(other, NEW_PASSWORD);
    await other.waitForURL((url) => url.pathname === '/workspace/queue');
  });
});
