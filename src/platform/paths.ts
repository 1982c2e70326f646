import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The repository root (the folder with package.json), from src/ and dist/src/ alike. */
export function projectRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'drizzle'))) return (root = dir);
    dir = dirname(dir);
  }
  throw new Error('project root not found');
}
