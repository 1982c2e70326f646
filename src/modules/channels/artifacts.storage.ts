import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * Where inbound attachments are kept, with their conversation. The default is a directory under
 * DATA_DIR; a deployment with several instances points it at shared storage (docs/operations.md)
 * or implements this interface over an object store.
 */
export interface ArtifactStorage {
  put(key: string, data: Buffer): Promise<void>;
  get(key: string): Promise<Buffer>;
}

export class DirectoryArtifactStorage implements ArtifactStorage {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, data: Buffer): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, data, { mode: 0o600 });
  }

  get(key: string): Promise<Buffer> {
    return readFile(this.path(key));
  }

  private path(key: string): string {
    const path = resolve(join(this.root, key));
    // Keys are ours (org/conversation/uuid), but never let one leave the root.
    if (!path.startsWith(this.root + '/')) throw new Error('artifact key outside the storage root');
    return path;
  }
}

export const ARTIFACT_STORAGE = Symbol('ARTIFACT_STORAGE');
