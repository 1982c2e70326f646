import { Alert, Anchor, Container } from '@mantine/core';
import { useRouteError } from 'react-router';

/** Last resort for an error thrown while rendering a route. */
export function ErrorPage() {
  const error = useRouteError();
  return (
    <Container size="sm" py="xl">
      <Alert color="red" role="alert" title="Something went wrong">
        {error instanceof Error ? error.message : 'An unexpected error occurred.'} <Anchor href="/">Reload the app</Anchor>
      </Alert>
    </Container>
  );
}
