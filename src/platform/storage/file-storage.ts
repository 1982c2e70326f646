import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * Files a module keeps outside the database (a conversation's artifacts, an org's logo): bytes
 * under a key the module makes, with a row of its own naming the key. The default is a directory
 * under DATA_DIR; a deployment with several instances points it at shared storage
 * (docs/operations.md) or implements this interface over an object store.
 */
export interface FileStorage {
  put(key: string, data: Buffer): Promise<void>;
  /** The bytes, or only the first `maxBytes` of them. */
  get(key: string, maxBytes?: number): Promise<Buffer>;
  /** Removes the file; a key that names nothing is not an error. */
  delete(key: string): Promise<void>;
}

export class DirectoryFileStorage implements FileStorage {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, data: Buffer): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, data, { mode: 0o600 });
  }

  async get(key: string, maxBytes?: number): Promise<Buffer> {
    if (maxBytes === undefined) return readFile(this.path(key));
    const file = await open(this.path(key), 'r');
    try {
      const buffer = Buffer.alloc(maxBytes);
      const { bytesRead } = await file.read(buffer, 0, maxBytes, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  private path(key: string): string {
    const path = resolve(join(this.root, key));
    // Keys are the modules' own (org/.../uuid), but never let one leave the root.
    if (!path.startsWith(this.root + '/')) throw new Error('storage key outside the storage root');
    return path;
  }
}
