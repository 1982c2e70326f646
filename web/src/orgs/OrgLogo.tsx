import { Avatar, Image } from '@mantine/core';
import { useLogoImage } from './logo.api';

const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word[0]!.toUpperCase())
    .join('');

/** An org's logo, or (with `placeholder`) its initials while it has none. */
export function OrgLogo({ logoUrl, name, size = 40, placeholder = false }: { logoUrl: string | null; name: string; size?: number; placeholder?: boolean }) {
  const image = useLogoImage(logoUrl);
  if (image.data) return <Image src={image.data} alt={`${name} logo`} h={size} w="auto" maw={size * 4} fit="contain" data-testid="org-logo" />;
  if (!placeholder) return null;
  return (
    <Avatar size={size} radius="sm" color="gray" aria-hidden="true">
      {initials(name)}
    </Avatar>
  );
}
