import { badRequest } from '../../errors.js';

// An app's sender and Reply-To (docs/email.md): `Name <address>` or a bare address. Kept as written, trimmed;
// refused when it is not one mailbox, so a header can never carry a second address or a line break. The
// relay (SMTP_URL) must be allowed to send for the sender's domain (SPF, DKIM): that is the operator's setting.

const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const MAILBOX = /^([^<>"\\\u0000-\u001f\u007f,;:@]{1,64}?)\s*<([^<>\s]+)>$/;

/** The mailbox as stored, or 400 `invalid_email_sender` naming the setting. */
export function checkMailbox(setting: 'email_from' | 'reply_to', value: string): string {
  const trimmed = value.trim();
  const named = MAILBOX.exec(trimmed);
  const address = named ? named[2]! : trimmed;
  if (trimmed.length > 320 || !ADDRESS.test(address) || address.length > 254) {
    throw badRequest(`${setting} must be one address, such as "Acme <no-reply@acme.example>" or no-reply@acme.example`, 'invalid_email_sender');
  }
  return named ? `${named[1]!.trim()} <${address}>` : address;
}

/** The setting's column: null clears it (EMAIL_FROM, or no Reply-To), an empty string too. */
export const mailboxColumn = (setting: 'email_from' | 'reply_to', value: string | null): string | null =>
  value === null || value.trim() === '' ? null : checkMailbox(setting, value);
