import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('migrations', () => {
  it('are up to date with the drizzle schema (drizzle-kit generates nothing new)', () => {
    // drizzle-kit wants an output folder relative to the project.
    mkdirSync('.tmp', { recursive: true });
    const out = `.tmp/drizzle-check-${randomBytes(4).toString('hex')}`;
    try {
      cpSync('drizzle', out, { recursive: true });
      const before = readdirSync(out).sort();
      const output = execFileSync(process.execPath, ['node_modules/drizzle-kit/bin.cjs', 'generate'], {
        env: { ...process.env, DRIZZLE_OUT: out },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(output).toMatch(/No schema changes/);
      expect(readdirSync(out).sort()).toEqual(before);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
