// Sign up, verify the emailed code, sign in with a password or a passkey (a discoverable credential: no email
// typed, aal2 by itself), and a second factor when the account has one (a TOTP code, a passkey or a recovery
// code). All through @gatehouse/client: it solves the sign-up's proof-of-work in its worker and runs the
// passkey ceremonies (navigator.credentials). Shown by <App> for every route while nobody is signed in.
import { isGatehouseError, MfaRequiredError } from '@gatehouse/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { gatehouse } from '../session.js';
import { Field, Form } from '../ui/fields.js';
import { useAction } from '../ui/load.js';
import { Notice, Problem } from '../ui/problem.js';

/** The mfa step knows which kinds of factor the account has (the challenge's `factors`). */
type Step = { kind: 'sign-in' } | { kind: 'sign-up' } | { kind: 'verify'; email: string } | { kind: 'mfa'; mfaToken: string; totp: boolean; passkey: boolean };

export function SignIn({ intro, startWith = 'sign-in' }: { intro?: string; startWith?: 'sign-in' | 'sign-up' }) {
  const [step, setStep] = useState<Step>({ kind: startWith });
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const action = useAction();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [step.kind]);
  const auth = gatehouse().auth;

  const go = (next: Step, text?: string) => {
    action.clear();
    setCode('');
    setNotice(text);
    setStep(next);
  };

  const signIn = () =>
    action.run(async () => {
      try {
        await auth.signInWithPassword({ email, password });
      } catch (error) {
        if (error instanceof MfaRequiredError || (isGatehouseError(error) && error.code === 'mfa_required')) {
          const { mfaToken, factors = [] } = error as MfaRequiredError;
          const totp = factors.length === 0 || factors.some((f) => f.type === 'totp');
          setUseRecovery(!totp);
          return go({ kind: 'mfa', mfaToken, totp, passkey: factors.some((f) => f.type === 'webauthn') });
        }
        if (isGatehouseError(error) && error.code === 'email_not_verified') {
          await auth.signInWithOtp({ email, redirectTo: null });
          return go({ kind: 'verify', email }, 'Your address is not verified yet: we emailed you a new code.');
        }
        throw error;
      }
    });
  const signUp = () =>
    action.run(async () => {
      setNotice('Checking that you are not a bot (this takes a few seconds)…');
      await auth.signUp({ email, password, redirectTo: null });
      go({ kind: 'verify', email }, `We emailed a 6-digit code to ${email}.`);
    });
  const verify = (address: string) => action.run(() => auth.verifyOtp({ email: address, code: code.trim() }));
  const withPasskey = () => action.run(() => auth.signInWithPasskey());
  const passkeyFactor = (mfaToken: string) => action.run(() => auth.verifyMfa({ mfaToken, passkey: true }));
  const secondFactor = (mfaToken: string) => action.run(() => auth.verifyMfa(useRecovery ? { mfaToken, recoveryCode: code.trim() } : { mfaToken, code: code.trim() }));

  return (
    <main id="main" class="auth">
      <h1 tabIndex={-1} ref={heading}>
        {step.kind === 'sign-up' ? 'Create your console account' : step.kind === 'verify' ? 'Check your email' : step.kind === 'mfa' ? 'Second factor' : 'Sign in to the console'}
      </h1>
      {intro && <p>{intro}</p>}
      <Notice text={notice} />
      {(step.kind === 'sign-in' || step.kind === 'sign-up') && (
        <Form onSubmit={step.kind === 'sign-in' ? signIn : signUp} label={step.kind === 'sign-in' ? 'Sign in' : 'Sign up'}>
          <Field label="Email" type="email" autoComplete="email" required value={email} onValue={setEmail} />
          <Field
            label="Password"
            type="password"
            autoComplete={step.kind === 'sign-in' ? 'current-password' : 'new-password'}
            required
            minLength={step.kind === 'sign-up' ? 8 : undefined}
            value={password}
            onValue={setPassword}
            hint={step.kind === 'sign-up' ? 'At least 8 characters.' : undefined}
          />
          <button type="submit" disabled={action.busy}>
            {step.kind === 'sign-in' ? 'Sign in' : 'Create account'}
          </button>
        </Form>
      )}
      {step.kind === 'sign-in' && (
        <p>
          <button type="button" class="secondary" disabled={action.busy} onClick={withPasskey}>
            Sign in with a passkey
          </button>
        </p>
      )}
      {step.kind === 'verify' && (
        <Form onSubmit={() => verify(step.email)} label="Verify your email">
          <Field label="Code from the email" inputMode="numeric" autoComplete="one-time-code" required value={code} onValue={setCode} />
          <button type="submit" disabled={action.busy}>
            Verify
          </button>
        </Form>
      )}
      {step.kind === 'mfa' && step.passkey && (
        <p>
          <button type="button" disabled={action.busy} onClick={() => passkeyFactor(step.mfaToken)}>
            Use a passkey
          </button>
        </p>
      )}
      {step.kind === 'mfa' && (
        <Form onSubmit={() => secondFactor(step.mfaToken)} label="Second factor">
          <Field
            label={useRecovery ? 'Recovery code' : 'Code from your authenticator app'}
            autoComplete="one-time-code"
            required
            value={code}
            onValue={setCode}
          />
          <button type="submit" disabled={action.busy}>
            Continue
          </button>
          {step.totp && (
            <button type="button" class="link" onClick={() => setUseRecovery(!useRecovery)}>
              {useRecovery ? 'Use an authenticator code instead' : 'Use a recovery code instead'}
            </button>
          )}
        </Form>
      )}
      <Problem error={action.error} />
      {step.kind === 'sign-in' && (
        <p>
          New here?{' '}
          <button type="button" class="link" onClick={() => go({ kind: 'sign-up' })}>
            Create an account
          </button>
        </p>
      )}
      {step.kind !== 'sign-in' && (
        <p>
          {step.kind === 'sign-up' && 'Already have an account? '}
          <button type="button" class="link" onClick={() => go({ kind: 'sign-in' })}>
            {step.kind === 'sign-up' ? 'Sign in' : 'Back to sign in'}
          </button>
        </p>
      )}
    </main>
  );
}
