import { Anchor, Group, Image, Stack, Text } from '@mantine/core';
import { INLINE_ATTACHMENT_TYPES, type AttachmentDto } from '@contracts';
import { formatBytes } from '../ops/format';

/**
 * A message's attachments: images as thumbnails that open the full image, other files as download
 * links with their name and size. The links are the signed ones of the thread view.
 */
export function Attachments({ attachments }: { attachments: AttachmentDto[] }) {
  if (attachments.length === 0) return null;
  const images = attachments.filter((a) => INLINE_ATTACHMENT_TYPES.includes(a.contentType.split(';')[0]!.trim().toLowerCase()));
  const files = attachments.filter((a) => !images.includes(a));
  return (
    <Stack gap={6} mt={6} data-testid="message-attachments">
      {images.length > 0 && (
        <Group gap="xs" wrap="wrap">
          {images.map((a) => (
            <Anchor key={a.id} href={a.url} target="_blank" rel="noopener noreferrer" title={`${a.name} (${formatBytes(a.size)})`} data-testid="attachment-image" data-name={a.name}>
              <Image src={a.url} alt={a.name} h={96} w="auto" maw={160} fit="contain" radius="sm" style={{ border: '1px solid var(--mantine-color-default-border)' }} />
            </Anchor>
          ))}
        </Group>
      )}
      {files.map((a) => (
        <Group key={a.id} gap={6} wrap="nowrap">
          <Anchor href={a.url} download={a.name} size="sm" data-testid="attachment-file" data-name={a.name}>
            {a.name}
          </Anchor>
          <Text size="xs" c="dimmed">
            {formatBytes(a.size)}
          </Text>
        </Group>
      ))}
    </Stack>
  );
}
