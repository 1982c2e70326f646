import { LOGO_ACCEPT, LOGO_MAX_BYTES, type OrgDto } from '@contracts';
import { Button, FileButton, Group, Image, Input, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { dataUrlOf, orgLogoApi } from './logo.api';
import { OrgLogo } from './OrgLogo';

const HINT = `PNG, JPEG or WebP, at most ${LOGO_MAX_BYTES / (1024 * 1024)} MB`;

/** What the browser can tell before sending: the server checks the bytes themselves. */
export function logoFileProblem(file: File): string | null {
  if (!LOGO_ACCEPT.split(',').includes(file.type)) return 'The logo must be a PNG, JPEG or WebP image';
  if (file.size > LOGO_MAX_BYTES) return `The logo is larger than ${LOGO_MAX_BYTES / (1024 * 1024)} MB`;
  return null;
}

function PendingPreview({ file, name }: { file: File; name: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void dataUrlOf(file).then((url) => live && setSrc(url));
    return () => {
      live = false;
    };
  }, [file]);
  return src ? <Image src={src} alt={`${name || 'New'} logo (not saved yet)`} h={48} w="auto" maw={192} fit="contain" data-testid="logo-preview" /> : null;
}

type Props =
  /** The org exists: a chosen file is uploaded at once, Remove removes at once. */
  | { orgId: string; orgName: string; logoUrl: string | null; onSaved: (org: OrgDto) => void }
  /** The org is being created: the file waits in the form and is uploaded once the org exists. */
  | { orgId?: undefined; orgName: string; pending: File | null; onPendingChange: (file: File | null) => void };

/** The logo of spec 2.1: a file input with a preview and Remove. */
export function LogoField(props: Props) {
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (file: File | null) => (file ? orgLogoApi.upload(props.orgId!, file) : orgLogoApi.remove(props.orgId!)),
    onSuccess: (org) => props.orgId !== undefined && props.onSaved(org),
  });
  const choose = (file: File | null) => {
    save.reset();
    if (!file) return;
    const found = logoFileProblem(file);
    setProblem(found);
    if (found) return;
    if (props.orgId !== undefined) save.mutate(file);
    else props.onPendingChange(file);
  };
  const remove = () => {
    setProblem(null);
    if (props.orgId !== undefined) save.mutate(null);
    else props.onPendingChange(null);
  };
  const hasLogo = props.orgId !== undefined ? props.logoUrl !== null : props.pending !== null;
  const error = problem ?? (save.error ? save.error.message : null);

  return (
    <Input.Wrapper label="Logo" description={HINT} error={error}>
      <Stack gap="xs" mt={4}>
        <Group gap="sm" mih={48} data-testid="logo-field">
          {props.orgId !== undefined ? <OrgLogo logoUrl={props.logoUrl} name={props.orgName} size={48} /> : props.pending && <PendingPreview file={props.pending} name={props.orgName} />}
          {!hasLogo && (
            <Text size="sm" c="dimmed">
              No logo
            </Text>
          )}
        </Group>
        <Group gap="xs">
          <FileButton onChange={choose} accept={LOGO_ACCEPT}>
            {(button) => (
              <Button {...button} variant="default" size="xs" loading={save.isPending && save.variables !== null}>
                {hasLogo ? 'Replace logo' : 'Upload logo'}
              </Button>
            )}
          </FileButton>
          {hasLogo && (
            <Button variant="subtle" color="red" size="xs" onClick={remove} loading={save.isPending && save.variables === null}>
              Remove logo
            </Button>
          )}
        </Group>
      </Stack>
    </Input.Wrapper>
  );
}
