/**
 * The stored form of an attachment in a message's text (spec 4.8 rule 4): a standard resource block
 * naming the conversation's artifact, never its bytes:
 *   [resource uri="artifact://<id>" name="<file name>" mimeType="<type>" size="<bytes>"]
 * Written by the channels worker (one block per line after the message text), read back by the
 * turn (to give the model the file) and by the thread views (to list the attachments).
 */
export interface ResourceRef {
  artifactId: string;
  name: string;
  mimeType: string;
  size: number;
}

const BLOCK = /\[resource uri="artifact:\/\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})" name="([^"\n]*)" mimeType="([^"\n]*)" size="(\d{1,15})"\]/gi;

/** A value as it may stand between the block's quotes. */
function quoted(value: string): string {
  return value.replace(/"/g, "'").replace(/[\u0000-\u001f\u007f]/g, ' ');
}

export function resourceBlock(ref: ResourceRef): string {
  return `[resource uri="artifact://${ref.artifactId}" name="${quoted(ref.name)}" mimeType="${quoted(ref.mimeType)}" size="${ref.size}"]`;
}

/** The message's own text (the blocks taken out) and the artifacts its blocks name, in order, each once. */
export function splitResources(content: string): { text: string; resources: ResourceRef[] } {
  const resources: ResourceRef[] = [];
  const seen = new Set<string>();
  const text = content.replace(BLOCK, (_, id: string, name: string, mimeType: string, size: string) => {
    const artifactId = id.toLowerCase();
    if (!seen.has(artifactId)) {
      seen.add(artifactId);
      resources.push({ artifactId, name, mimeType, size: Number(size) });
    }
    return '';
  });
  if (resources.length === 0) return { text: content, resources };
  return {
    text: text
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    resources,
  };
}
