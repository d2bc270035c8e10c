import type { LocaleWords } from '../kinds.js';

// French, addressing the reader as « vous ». A colon, semicolon or question mark takes a no-break space before it.
const nb = '\u00a0';

export const fr: LocaleWords = {
  common: {
    code_validity: 'Le code est valable {{code_valid_for}}.',
    link_validity: 'Le lien est valable {{link_valid_for}}.',
    notice_advice: `Si c’était vous, vous n’avez rien à faire. Sinon, réinitialisez votre mot de passe immédiatement et contactez le support de l’application.`,
  },
  kinds: {
    verify_email: {
      subject: 'Vérifiez votre adresse e-mail pour {{app_name}}',
      code_intro: `Votre code de vérification${nb}:`,
      link_intro: `Ouvrez ce lien pour vérifier votre adresse e-mail${nb}:`,
      link_intro_after_code: `Ou ouvrez ce lien pour vérifier votre adresse e-mail${nb}:`,
      ignore: `Si vous ne vous êtes pas inscrit à {{app_name}}, ignorez cet e-mail${nb}: sans ce code ou ce lien, personne ne peut vérifier le compte.`,
    },
    magic_link: {
      subject: 'Connexion à {{app_name}}',
      code_intro: `Votre code de connexion${nb}:`,
      link_intro: `Ouvrez ce lien pour vous connecter${nb}:`,
      link_intro_after_code: `Ou ouvrez ce lien pour vous connecter${nb}:`,
      ignore: 'Si vous n’avez pas demandé cet e-mail, vous pouvez l’ignorer.',
    },
    password_reset: {
      subject: 'Réinitialisez votre mot de passe pour {{app_name}}',
      code_intro: `Votre code de réinitialisation du mot de passe${nb}:`,
      link_intro: `Ouvrez ce lien pour choisir un nouveau mot de passe${nb}:`,
      link_intro_after_code: `Ou ouvrez ce lien pour choisir un nouveau mot de passe${nb}:`,
      ignore: `Si vous n’avez pas demandé à réinitialiser votre mot de passe, ignorez cet e-mail${nb}: votre mot de passe reste inchangé.`,
    },
    change_email: {
      subject: 'Confirmez votre nouvelle adresse e-mail pour {{app_name}}',
      code_intro: `Votre code de confirmation${nb}:`,
      link_intro: `Ouvrez ce lien pour confirmer cette adresse${nb}:`,
      link_intro_after_code: `Ou ouvrez ce lien pour confirmer cette adresse${nb}:`,
      ignore: `Si vous n’avez pas demandé à utiliser cette adresse pour {{app_name}}, ignorez cet e-mail${nb}: rien ne change sans ce code ou ce lien.`,
    },
    password_changed: {
      subject: 'Votre mot de passe a été modifié pour {{app_name}}',
      body: 'Le mot de passe de votre compte {{app_name}} vient d’être modifié, et tous vos autres appareils ont été déconnectés.',
    },
    email_changed: {
      subject: 'Votre adresse e-mail a été modifiée pour {{app_name}}',
      body:
        'L’adresse e-mail de votre compte {{app_name}} vient d’être modifiée{{#new_email_masked}} en {{new_email_masked}}{{/new_email_masked}}. ' +
        'Cette adresse ne permet plus de vous connecter.',
    },
    factor_added: {
      subject: 'Un second facteur a été ajouté à votre compte {{app_name}}',
      body: `Un second facteur (une application d’authentification ou une clé d’accès) vient d’être ajouté à votre compte {{app_name}}${nb}; il vous sera désormais demandé à la connexion.`,
    },
    factor_removed: {
      subject: 'Un second facteur a été retiré de votre compte {{app_name}}',
      body: 'Un second facteur (une application d’authentification ou une clé d’accès) vient d’être retiré de votre compte {{app_name}}.',
    },
    factors_reset: {
      subject: 'Vos seconds facteurs ont été réinitialisés sur {{app_name}}',
      body: `L’opérateur de l’application vient de supprimer tous les seconds facteurs et codes de récupération de votre compte {{app_name}}${nb}; la connexion ne demande plus que votre premier facteur.`,
    },
    recovery_codes_renewed: {
      subject: 'De nouveaux codes de récupération ont été créés pour votre compte {{app_name}}',
      body: `Une nouvelle série de codes de récupération vient d’être créée pour votre compte {{app_name}}${nb}; les anciens codes ne fonctionnent plus.`,
    },
    factor_locked: {
      subject: 'Des codes d’authentification erronés ont été saisis pour votre compte {{app_name}}',
      body:
        'Plusieurs codes d’authentification erronés viennent d’être saisis d’affilée pour vous connecter à votre compte {{app_name}}, après la réussite de sa première étape (votre mot de passe, par exemple). ' +
        `Votre application d’authentification refuse désormais les codes pendant un certain temps, plus longtemps après chaque nouvelle erreur${nb}; un code de récupération ou une clé d’accès permet toujours de vous connecter.`,
    },
    tenant_invitation: {
      subject: 'Vous êtes invité à gérer {{tenant_name}} sur {{app_name}}',
      body: '{{#inviter_email}}{{inviter_email}} vous invite{{/inviter_email}}{{^inviter_email}}Vous êtes invité{{/inviter_email}} à rejoindre {{tenant_name}} en tant que {{role}}.',
      link_intro: `Ouvrez ce lien pour accepter l’invitation${nb}:`,
      ignore: `Si vous ne connaissez pas {{tenant_name}}, ignorez cet e-mail${nb}: rien ne se passe sans ce lien.`,
    },
    organization_invitation: {
      subject: 'Vous êtes invité à rejoindre {{organization_name}} sur {{app_name}}',
      body:
        '{{#inviter_email}}{{inviter_email}} vous invite{{/inviter_email}}{{^inviter_email}}Vous êtes invité{{/inviter_email}} à rejoindre l’organisation {{organization_name}} sur {{app_name}} en tant que {{role}}.',
      link_intro: `Ouvrez ce lien, puis connectez-vous avec cette adresse e-mail pour accepter${nb}:`,
      ignore: `Si vous ne connaissez pas cette organisation, ignorez cet e-mail${nb}: rien ne se passe sans ce lien et cette adresse.`,
    },
  },
};
