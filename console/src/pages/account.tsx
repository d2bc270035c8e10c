// /console/account ("Your account" in the header): the signed-in console user's own account, through
// @gatehouse/client as the console app's user: the password, second factors (an authenticator app, passkeys,
// the recovery codes) and where they are signed in. Every member, viewer or not, manages their own account.
import { useState } from 'preact/hooks';
import { FactorsSection } from './account/factors.js';
import { PasswordSection } from './account/password.js';
import { SessionsSection } from './account/sessions.js';

export function AccountPage() {
  // A password change and a first factor sign the other sessions out: the list is read again after each.
  const [changes, setChanges] = useState(0);
  const changed = () => setChanges((n) => n + 1);
  return (
    <>
      <PasswordSection onChanged={changed} />
      <FactorsSection onChanged={changed} />
      <SessionsSection changes={changes} />
    </>
  );
}
