import { Container, Stack, Text, Title } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';
import { PRODUCT_NAME } from './product';

/** A page outside the signed-in shell (sign-in, onboarding): the product, the title, the body. */
export function PublicPage({ title, subtitle, width, children }: { title: string; subtitle?: ReactNode; width: number; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · ${PRODUCT_NAME}`;
  }, [title]);

  return (
    <Container size={width} py="xl">
      <Stack>
        <div>
          <Text c="dimmed" size="sm">
            {PRODUCT_NAME}
          </Text>
          <Title order={1}>{title}</Title>
          {subtitle}
        </div>
        {children}
      </Stack>
    </Container>
  );
}
