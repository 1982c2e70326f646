import { Page } from '../../layout/Page';
import { ProfileSections } from '../../profile/ProfileSections';

/** `/workspace/profile`: the Expert's name, password and two-factor sign-in. */
export function WorkspaceProfilePage() {
  return (
    <Page title="Profile">
      <ProfileSections />
    </Page>
  );
}
