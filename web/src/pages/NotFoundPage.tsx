import { Anchor, Container, Stack, Text, Title } from '@mantine/core';
import { Link, useLocation } from 'react-router';

export function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <Container size="sm" py="xl">
      <Stack>
        <Title order={1}>Not found</Title>
        <Text>
          There is no page at <code>{pathname}</code>.
        </Text>
        <Anchor component={Link} to="/">
          Go home
        </Anchor>
      </Stack>
    </Container>
  );
}
