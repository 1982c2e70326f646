/**
 * Where a conversation's artifacts (inbound attachments) are kept: once, under a key of the org and
 * the conversation, in the platform's file storage (a directory under DATA_DIR by default).
 */
export { DirectoryFileStorage as DirectoryArtifactStorage, type FileStorage as ArtifactStorage } from '../../platform/storage/file-storage.js';

export const ARTIFACT_STORAGE = Symbol('ARTIFACT_STORAGE');
