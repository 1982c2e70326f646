import { Stack, Title } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';
import { PRODUCT_NAME } from './product';

/** A page's title (heading and document title) and body. */
export function Page({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · ${PRODUCT_NAME}`;
  }, [title]);

  return (
    <Stack gap="lg">
      <Title order={1}>{title}</Title>
      {children}
    </Stack>
  );
}
