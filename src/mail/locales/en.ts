import type { LocaleWords } from '../kinds.js';

// English: the words of each kind are in its entry (mail/kinds.ts); these are the ones every kind shares.
export const en: LocaleWords = {
  common: {
    code_validity: 'The code is valid for {{code_valid_for}}.',
    link_validity: 'The link is valid for {{link_valid_for}}.',
    notice_advice: "If this was you, there is nothing to do. If it was not, reset your password at once and contact the app's support.",
  },
  kinds: {},
};
