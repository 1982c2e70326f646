import { Avatar, Badge, Button, Card, Group, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import type { SpecialistDto } from '@contracts';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { adminApi, adminKeys } from '../../../admin/admin.api';
import { LoadMore, useCursorList } from '../../../admin/paging';
import { SuperadminOnly } from '../../../admin/SuperadminOnly';
import { Page } from '../../../layout/Page';
import { formatMoney } from '../../../ops/format';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { SpecialistFormModal } from './SpecialistFormModal';

/** `/ops/specialists`: the Specialist catalog (spec 2.2), searchable; SuperAdmins create and edit personas. */
export function SpecialistsPage() {
  return (
    <SuperadminOnly title="Specialists">
      <Catalog />
    </SuperadminOnly>
  );
}

export function catalogRate(s: SpecialistDto): string {
  return s.monthly_rate_config ? `${formatMoney(s.monthly_rate_config.base_rate, s.monthly_rate_config.currency)} / month` : 'No catalog rate';
}

function Catalog() {
  const [params, setParams] = useSearchParams();
  const search = params.get('q') ?? '';
  const [q] = useDebouncedValue(search.trim(), 300);
  const [editing, setEditing] = useState<SpecialistDto | 'new' | null>(null);
  const { query: list, items } = useCursorList(adminKeys.specialistList(q || undefined), (cursor, signal) => adminApi.specialists(q || undefined, cursor, signal));

  return (
    <Page title="Specialists">
      <Group align="flex-end" justify="space-between">
        <TextInput
          label="Search"
          type="search"
          placeholder="Name, handle, email or skill"
          value={search}
          onChange={(event) => {
            const next = new URLSearchParams(params);
            if (event.currentTarget.value) next.set('q', event.currentTarget.value);
            else next.delete('q');
            setParams(next, { replace: true });
          }}
          style={{ flex: '1 1 16rem' }}
        />
        <Button onClick={() => setEditing('new')}>New Specialist</Button>
      </Group>
      {list.isPending && <SectionLoader label="Loading the catalog" />}
      <QueryAlert title="Could not load the catalog" error={list.error} retry={() => void list.refetch()} />
      {list.data && items.length === 0 && <Text c="dimmed">{q ? 'No Specialist matches.' : 'The catalog is empty. Create the first Specialist.'}</Text>}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} data-testid="specialist-list">
        {items.map((s) => (
          <SpecialistCard key={s.id} specialist={s} onEdit={() => setEditing(s)} />
        ))}
      </SimpleGrid>
      <LoadMore query={list} />
      {editing && <SpecialistFormModal specialist={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Page>
  );
}

function SpecialistCard({ specialist: s, onEdit }: { specialist: SpecialistDto; onEdit: () => void }) {
  return (
    <Card withBorder component="article" aria-label={s.name} data-testid="specialist-card" data-handle={s.slug}>
      <Stack gap="xs" h="100%">
        <Group wrap="nowrap" align="flex-start">
          <Avatar src={s.avatarUrl} name={s.name} color="initials" size="lg" alt="" />
          <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
            <Title order={2} size="h4" style={{ overflowWrap: 'anywhere' }}>
              {s.name}
            </Title>
            <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              {s.routingEmail ?? 'No routing email'}
            </Text>
          </Stack>
        </Group>
        <Text size="sm" fw={500} data-testid="specialist-rate">
          {catalogRate(s)}
        </Text>
        {s.skillTags.length > 0 && (
          <Group gap={4}>
            {s.skillTags.map((tag) => (
              <Badge key={tag} variant="light" style={{ textTransform: 'none', maxWidth: '100%' }}>
                {tag}
              </Badge>
            ))}
          </Group>
        )}
        {s.persona && (
          <Text size="sm" lineClamp={3} style={{ overflowWrap: 'anywhere' }}>
            {s.persona}
          </Text>
        )}
        <Group justify="flex-end" mt="auto">
          <Button variant="default" size="xs" onClick={onEdit} aria-label={`Edit ${s.name}`}>
            Edit
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
