import { ProfileSections } from '../../../../profile/ProfileSections';

/** `/client/settings/profile` (and `/ops/profile`): the caller's name, password and two-factor sign-in. */
export function ProfilePage() {
  return <ProfileSections />;
}
