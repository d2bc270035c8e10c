// The signed-in person's own account: who they are, password and email changes, where they are signed
// in (with a way to sign a device out), and deleting the account. docs/account.md, docs/privacy.md.
import { $, device, run, value, when } from './ui.js';

export function profile(gatehouse, config) {
  const auth = gatehouse.auth;

  async function load() {
    const user = await auth.getUser();
    if (!user) return;
    $('who').textContent = user.email;
    $('profile-email').textContent = user.email;
    $('profile-verified').textContent = user.email_verified ? 'Email confirmed' : 'Email not confirmed yet';
    await sessions();
  }

  async function sessions() {
    const list = await auth.listSessions();
    $('session-list').replaceChildren(
      ...list.map((s) => {
        const li = document.createElement('li');
        li.dataset.sessionId = s.session_id;
        const text = document.createElement('span');
        text.className = 'grow';
        text.textContent = `${device(s.user_agent)}${s.ip ? ` · ${s.ip}` : ''} · since ${when(s.created_at)}`;
        li.append(text);
        if (s.current) {
          const tag = document.createElement('span');
          tag.className = 'tag';
          tag.textContent = 'This device';
          li.append(tag);
        } else {
          const out = document.createElement('button');
          out.className = 'secondary';
          out.textContent = 'Sign out this device';
          out.onclick = () => run('Signing that device out…', async () => {
            await auth.revokeSession(s.session_id);
            await sessions();
            return 'That device is signed out.';
          });
          li.append(out);
        }
        return li;
      }),
    );
  }

  $('sign-out-others').onclick = () => run('Signing out your other devices…', async () => {
    const n = await auth.revokeOtherSessions();
    await sessions();
    return n === 0 ? 'You were signed in nowhere else.' : `Signed out of ${n} other ${n === 1 ? 'device' : 'devices'}.`;
  });

  $('change-password').onclick = () => run('Changing your password…', async () => {
    await auth.updatePassword({ currentPassword: $('current-password').value || undefined, password: $('changed-password').value });
    $('current-password').value = $('changed-password').value = '';
    await sessions();
    return 'Password changed. Your other devices were signed out.';
  });

  $('change-email').onclick = () => run('Sending a code to the new address…', async () => {
    await auth.updateEmail(value('new-email'), { redirectTo: location.origin + '/' });
    $('email-confirm').hidden = false;
    return `We sent a code to ${value('new-email')}. Enter it below to confirm.`;
  });
  $('confirm-email').onclick = () => run('Confirming…', async () => {
    const user = await auth.confirmEmailChange({ code: value('email-code-input') });
    $('email-confirm').hidden = true;
    $('new-email').value = $('email-code-input').value = '';
    await load();
    return `Your email is now ${user.email}.`;
  });

  $('delete-account').onclick = () => {
    $('delete-account').hidden = true;
    $('delete-confirm').hidden = false;
  };
  $('cancel-delete').onclick = () => {
    $('delete-account').hidden = false;
    $('delete-confirm').hidden = true;
  };
  $('confirm-delete').onclick = () => run('Deleting your account…', async () => {
    try {
      await auth.deleteAccount();
    } catch (error) {
      if (error.code === 'reauthentication_required') throw new Error('For your safety, sign out and sign in again, then delete your account within 10 minutes.');
      throw error;
    } finally {
      $('cancel-delete').onclick();
    }
    return 'Your account and everything in it were deleted.';
  });

  // SSO: the other app's page asks for the hop itself (its client keeps the nonce that binds the token to
  // it), so this link only opens that page, saying where the person comes from (app.js, ssoRequested).
  for (const other of config.others) {
    const link = document.createElement('a');
    link.className = 'button';
    link.id = `sso-${other.name.toLowerCase()}`;
    link.textContent = `Open ${other.name}`;
    link.href = `${other.url}?sign_in_with=${encodeURIComponent(config.name)}`;
    $('sso-links').append(link);
  }

  return { load, sessions };
}
