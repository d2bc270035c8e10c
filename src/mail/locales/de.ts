import type { LocaleWords } from '../kinds.js';

// German, addressing the reader as „Sie“.
export const de: LocaleWords = {
  common: {
    code_validity: 'Der Code ist {{code_valid_for}} gültig.',
    link_validity: 'Der Link ist {{link_valid_for}} gültig.',
    notice_advice: 'Wenn Sie das waren, müssen Sie nichts tun. Wenn nicht, setzen Sie Ihr Passwort sofort zurück und wenden Sie sich an den Support der App.',
  },
  kinds: {
    verify_email: {
      subject: 'Bestätigen Sie Ihre E-Mail-Adresse für {{app_name}}',
      code_intro: 'Ihr Bestätigungscode lautet:',
      link_intro: 'Öffnen Sie diesen Link, um Ihre E-Mail-Adresse zu bestätigen:',
      link_intro_after_code: 'Oder öffnen Sie diesen Link, um Ihre E-Mail-Adresse zu bestätigen:',
      ignore: 'Wenn Sie sich nicht bei {{app_name}} registriert haben, ignorieren Sie diese E-Mail: Ohne diesen Code oder Link kann niemand das Konto bestätigen.',
    },
    magic_link: {
      subject: 'Bei {{app_name}} anmelden',
      code_intro: 'Ihr Anmeldecode lautet:',
      link_intro: 'Öffnen Sie diesen Link, um sich anzumelden:',
      link_intro_after_code: 'Oder öffnen Sie diesen Link, um sich anzumelden:',
      ignore: 'Wenn Sie diese E-Mail nicht angefordert haben, können Sie sie ignorieren.',
    },
    password_reset: {
      subject: 'Setzen Sie Ihr Passwort für {{app_name}} zurück',
      code_intro: 'Ihr Code zum Zurücksetzen des Passworts lautet:',
      link_intro: 'Öffnen Sie diesen Link, um ein neues Passwort zu wählen:',
      link_intro_after_code: 'Oder öffnen Sie diesen Link, um ein neues Passwort zu wählen:',
      ignore: 'Wenn Sie das Zurücksetzen Ihres Passworts nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.',
    },
    change_email: {
      subject: 'Bestätigen Sie Ihre neue E-Mail-Adresse für {{app_name}}',
      code_intro: 'Ihr Bestätigungscode lautet:',
      link_intro: 'Öffnen Sie diesen Link, um diese Adresse zu bestätigen:',
      link_intro_after_code: 'Oder öffnen Sie diesen Link, um diese Adresse zu bestätigen:',
      ignore: 'Wenn Sie diese Adresse nicht für {{app_name}} verwenden wollten, ignorieren Sie diese E-Mail: Ohne diesen Code oder Link ändert sich nichts.',
    },
    password_changed: {
      subject: 'Ihr Passwort für {{app_name}} wurde geändert',
      body: 'Das Passwort Ihres Kontos bei {{app_name}} wurde soeben geändert, und alle anderen Geräte wurden abgemeldet.',
    },
    email_changed: {
      subject: 'Ihre E-Mail-Adresse für {{app_name}} wurde geändert',
      body:
        'Die E-Mail-Adresse Ihres Kontos bei {{app_name}} wurde soeben{{#new_email_masked}} in {{new_email_masked}}{{/new_email_masked}} geändert. ' +
        'Mit dieser Adresse können Sie sich nicht mehr anmelden.',
    },
    factor_added: {
      subject: 'Ihrem Konto bei {{app_name}} wurde ein zweiter Faktor hinzugefügt',
      body: 'Ihrem Konto bei {{app_name}} wurde soeben ein zweiter Faktor (eine Authenticator-App oder ein Passkey) hinzugefügt; bei der Anmeldung wird er nun abgefragt.',
    },
    factor_removed: {
      subject: 'Von Ihrem Konto bei {{app_name}} wurde ein zweiter Faktor entfernt',
      body: 'Von Ihrem Konto bei {{app_name}} wurde soeben ein zweiter Faktor (eine Authenticator-App oder ein Passkey) entfernt.',
    },
    factors_reset: {
      subject: 'Ihre zweiten Faktoren bei {{app_name}} wurden zurückgesetzt',
      body: 'Der Betreiber der App hat soeben alle zweiten Faktoren und Wiederherstellungscodes Ihres Kontos bei {{app_name}} entfernt; bei der Anmeldung wird nur noch Ihr erster Faktor abgefragt.',
    },
    recovery_codes_renewed: {
      subject: 'Für Ihr Konto bei {{app_name}} wurden neue Wiederherstellungscodes erstellt',
      body: 'Für Ihr Konto bei {{app_name}} wurde soeben ein neuer Satz Wiederherstellungscodes erstellt; die bisherigen Codes gelten nicht mehr.',
    },
    factor_locked: {
      subject: 'Für Ihr Konto bei {{app_name}} wurden falsche Authenticator-Codes eingegeben',
      body:
        'Bei der Anmeldung an Ihrem Konto bei {{app_name}} wurden soeben mehrere falsche Authenticator-Codes nacheinander eingegeben, nachdem der erste Schritt (etwa Ihr Passwort) gelungen war. ' +
        'Ihr Authenticator nimmt nun eine Zeit lang keine Codes an, nach jedem weiteren Fehlversuch länger; mit einem Wiederherstellungscode oder einem Passkey können Sie sich weiterhin anmelden.',
    },
    tenant_invitation: {
      subject: 'Sie sind eingeladen, {{tenant_name}} bei {{app_name}} zu verwalten',
      body: '{{#inviter_email}}{{inviter_email}} lädt Sie ein{{/inviter_email}}{{^inviter_email}}Sie sind eingeladen{{/inviter_email}}, {{tenant_name}} als {{role}} beizutreten.',
      link_intro: 'Öffnen Sie diesen Link, um die Einladung anzunehmen:',
      ignore: 'Wenn Ihnen {{tenant_name}} unbekannt ist, ignorieren Sie diese E-Mail: Ohne diesen Link geschieht nichts.',
    },
    organization_invitation: {
      subject: 'Sie sind eingeladen, {{organization_name}} bei {{app_name}} beizutreten',
      body:
        '{{#inviter_email}}{{inviter_email}} lädt Sie ein{{/inviter_email}}{{^inviter_email}}Sie wurden eingeladen{{/inviter_email}}, der Organisation {{organization_name}} bei {{app_name}} als {{role}} beizutreten.',
      link_intro: 'Öffnen Sie diesen Link und melden Sie sich mit dieser E-Mail-Adresse an, um die Einladung anzunehmen:',
      ignore: 'Wenn Ihnen diese Organisation unbekannt ist, ignorieren Sie diese E-Mail: Ohne diesen Link und diese Adresse geschieht nichts.',
    },
  },
};
