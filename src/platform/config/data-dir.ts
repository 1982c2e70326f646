import { chmodSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Everything this process creates is private to the service user from now on (directories 0700,
 * files 0600): DATA_DIR holds the embedded database, its WAL (sign-in codes in plain text) and
 * generated keys. Called first thing at start, before any file is written.
 */
export function restrictNewFiles(): void {
  process.umask(0o077);
}

/**
 * Makes `root` and everything under it private (directories 0700, files 0600) and answers the
 * paths it changed, relative to `root`. Symbolic links are left alone (never followed). A file
 * that disappears during the walk (a WAL segment recycled) is skipped.
 */
export function makePrivate(root: string): string[] {
  const changed: string[] = [];
  if (!existsSync(root)) return changed;
  const visit = (path: string) => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    if (stat.isSymbolicLink()) return;
    const wanted = stat.isDirectory() ? PRIVATE_DIR : PRIVATE_FILE;
    if ((stat.mode & 0o777) !== wanted) {
      try {
        chmodSync(path, wanted);
        changed.push(relative(root, path) || '.');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    if (!stat.isDirectory()) return;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const name of names) visit(join(path, name));
  };
  visit(root);
  return changed;
}
