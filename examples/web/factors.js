// The signed-in person's second factors (docs/mfa.md), the "Security" card: the list (rename, remove), an
// authenticator app added by its QR code or its key and confirmed by a first code, a passkey on this
// device, and recovery codes, shown once, when a factor makes them.
import { $, device, run, value, when } from './ui.js';

const KINDS = { totp: 'Authenticator app', webauthn: 'Passkey' };

export function factors(gatehouse) {
  const mfa = gatehouse.auth.mfa;
  /** The enrollment waiting for its first code. */
  let pending;

  async function load() {
    const { factors: list, recovery_codes_remaining: left } = await mfa.listFactors();
    $('factor-list').replaceChildren(...list.map(row));
    $('factors-empty').hidden = list.length > 0;
    const verified = list.some((f) => f.status === 'verified');
    $('recovery-left').hidden = !verified;
    $('recovery-left').textContent = `${left} unused recovery ${left === 1 ? 'code' : 'codes'} left.`;
    $('renew-codes').hidden = !verified;
  }

  function row(factor) {
    const li = document.createElement('li');
    li.dataset.factorId = factor.factor_id;
    const text = document.createElement('span');
    text.className = 'grow';
    text.textContent = `${factor.friendly_name ?? KINDS[factor.type]} · ${factor.last_used_at ? `last used ${when(factor.last_used_at)}` : `added ${when(factor.created_at)}`}`;
    const kind = document.createElement('span');
    kind.className = factor.status === 'verified' ? 'tag' : 'tag pending';
    kind.textContent = factor.status === 'verified' ? KINDS[factor.type] : 'Not confirmed';
    const rename = button('Rename', 'secondary rename', () => renaming(li, factor));
    const remove = button('Remove', 'secondary remove', () =>
      run('Removing…', async () => {
        try {
          await mfa.removeFactor(factor.factor_id);
        } catch (error) {
          // 403: the server says why (an old sign-in, or one without a second step); say what to do about it.
          if (error.code === 'reauthentication_required' || error.code === 'aal2_required') throw new Error(`${error.detail.charAt(0).toUpperCase()}${error.detail.slice(1)}. Sign out, sign in again (with your second step), then remove it within 10 minutes.`);
          throw error;
        }
        await load();
        return `${factor.friendly_name ?? KINDS[factor.type]} removed.`;
      }),
    );
    li.append(text, kind, rename, remove);
    return li;
  }

  function renaming(li, factor) {
    const input = document.createElement('input');
    input.className = 'rename-input';
    input.value = factor.friendly_name ?? '';
    input.maxLength = 100;
    input.setAttribute('aria-label', 'New name');
    const save = button('Save', 'save-name', () =>
      run('Renaming…', async () => {
        const renamed = await mfa.renameFactor({ factorId: factor.factor_id, friendlyName: input.value.trim() || null });
        await load();
        return `Renamed to ${renamed.friendly_name ?? KINDS[renamed.type]}.`;
      }),
    );
    li.replaceChildren(input, save, button('Cancel', 'quiet', () => load()));
    input.focus();
  }

  function button(label, className, onclick) {
    const b = document.createElement('button');
    b.className = className;
    b.textContent = label;
    b.onclick = onclick;
    return b;
  }

  /** Recovery codes, shown once: the person copies them before going on. */
  function showRecoveryCodes(codes) {
    if (codes.length === 0) return;
    $('recovery-list').replaceChildren(...codes.map((code) => Object.assign(document.createElement('li'), { textContent: code })));
    $('recovery-codes').hidden = false;
  }

  $('add-totp').onclick = () =>
    run('Preparing your authenticator app…', async () => {
      pending = await mfa.enrollTotp({ friendlyName: value('totp-name') || undefined });
      // The server's SVG, as an image (an <img> runs no script), and the key for typing by hand.
      $('totp-qr').src = `data:image/svg+xml;utf8,${encodeURIComponent(pending.totp.qr_code)}`;
      $('totp-secret').textContent = pending.totp.secret.replace(/(.{4})(?=.)/g, '$1 ');
      $('totp-code').value = '';
      $('totp-setup').hidden = false;
      $('recovery-codes').hidden = true;
      await load();
      return 'Scan the QR code with your authenticator app, then enter the code it shows.';
    });

  $('confirm-totp').onclick = () =>
    run('Checking the code…', async () => {
      const { recovery_codes } = await mfa.confirmTotp({ factorId: pending.factor_id, code: value('totp-code') });
      pending = undefined;
      $('totp-setup').hidden = true;
      $('totp-name').value = '';
      showRecoveryCodes(recovery_codes);
      await load();
      return 'Authenticator app added. Save your recovery codes now: they are not shown again.';
    });

  $('cancel-totp').onclick = () => {
    $('totp-setup').hidden = true;
    pending = undefined;
  };

  $('add-passkey').onclick = () =>
    run('Follow your browser to create a passkey…', async () => {
      const { recovery_codes } = await mfa.registerPasskey({ friendlyName: value('totp-name') || device(navigator.userAgent) });
      $('totp-name').value = '';
      showRecoveryCodes(recovery_codes);
      await load();
      return recovery_codes.length ? 'Passkey added. Save your recovery codes now: they are not shown again.' : 'Passkey added.';
    });

  $('renew-codes').onclick = () =>
    run('Making new recovery codes…', async () => {
      showRecoveryCodes(await mfa.renewRecoveryCodes());
      await load();
      return 'New recovery codes: the old ones no longer work. Save these now.';
    });

  $('recovery-done').onclick = () => {
    $('recovery-codes').hidden = true;
    $('recovery-list').replaceChildren();
  };

  /** Signed out: nothing of the last person's may stay on the page. */
  function clear() {
    pending = undefined;
    $('totp-setup').hidden = $('recovery-codes').hidden = true;
    $('recovery-list').replaceChildren();
    $('factor-list').replaceChildren();
    $('totp-secret').textContent = '';
    $('totp-qr').removeAttribute('src');
  }

  return { load, clear };
}
