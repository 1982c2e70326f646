import { mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * Where a conversation's artifacts (inbound attachments) are kept: once, under a key of the org and
 * the conversation. The default is a directory under DATA_DIR; a deployment with several instances
 * points it at shared storage (docs/operations.md) or implements this interface over an object store.
 */
export interface ArtifactStorage {
  put(key: string, data: Buffer): Promise<void>;
  /** The bytes, or only the first `maxBytes` of them. */
  get(key: string, maxBytes?: number): Promise<Buffer>;
}

export class DirectoryArtifactStorage implements ArtifactStorage {
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

  private path(key: string): string {
    const path = resolve(join(this.root, key));
    // Keys are ours (org/conversation/uuid), but never let one leave the root.
    if (!path.startsWith(this.root + '/')) throw new Error('artifact key outside the storage root');
    return path;
  }
}

export const ARTIFACT_STORAGE = Symbol('ARTIFACT_STORAGE');
