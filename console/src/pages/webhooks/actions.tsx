// An endpoint's actions (owner, admin): send a test event, rotate the signing secret (the new one shown once;
// the old one signs beside it until previous_expires_at), replay the events since a date-time.
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Field, Form } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';
import { ShownOnce } from '../../ui/secret.js';
import { when, type Webhook } from './model.js';

export function SendTest({ appId, hook, onSent }: { appId: string; hook: Webhook; onSent: () => void }) {
  const [sent, setSent] = useState<string | undefined>(undefined);
  const action = useAction();
  const send = () =>
    action.run(async () => {
      const { delivery_id } = await api<Ok<'testWebhook'>>('POST', `/v1/webhooks/${hook.webhook_id}/test`, { appId });
      setSent(`Test event queued: delivery ${delivery_id}.`);
      onSent();
    });
  return (
    <section aria-labelledby="send-test">
      <h2 id="send-test">Send a test</h2>
      <p>A webhook.test event, to this endpoint alone.</p>
      <button type="button" onClick={send} disabled={action.busy}>
        Send a test event
      </button>
      <Notice text={sent} />
      <Problem error={action.error} />
    </section>
  );
}

export function RotateSecret({ appId, hook }: { appId: string; hook: Webhook }) {
  const [rotated, setRotated] = useState<Ok<'rotateWebhookSecret'> | undefined>(undefined);
  const action = useAction();
  const rotate = () => action.run(async () => setRotated(await api<Ok<'rotateWebhookSecret'>>('POST', `/v1/webhooks/${hook.webhook_id}/rotate_secret`, { appId })));
  return (
    <section aria-labelledby="rotate-secret">
      <h2 id="rotate-secret">Signing secret</h2>
      <p>A new secret signs every delivery from now on; the current one signs beside it for 24 hours, so your receiver can switch without losing any.</p>
      <button type="button" onClick={rotate} disabled={action.busy}>
        Rotate the signing secret
      </button>
      <Problem error={action.error} />
      {rotated && (
        <>
          <ShownOnce label="New signing secret" value={rotated.secret} hint="Shown once: store it now. Gatehouse keeps it sealed, to sign with, and cannot show it again." />
          <Notice text={`The previous secret stops signing at ${when(rotated.previous_expires_at)}.`} />
        </>
      )}
    </section>
  );
}

/** The value of a datetime-local field an hour ago, in the browser's time zone ("2026-12-02T14:05"). */
function anHourAgo(): string {
  const d = new Date(Date.now() - 3600_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function Replay({ appId, hook, onQueued }: { appId: string; hook: Webhook; onQueued: () => void }) {
  const [since, setSince] = useState(anHourAgo);
  const [queued, setQueued] = useState<string | undefined>(undefined);
  const action = useAction();
  const replay = () =>
    action.run(async () => {
      setQueued(undefined);
      const at = new Date(since);
      const body: Body<'replayWebhook'> = { since: Number.isNaN(at.getTime()) ? since : at.toISOString() };
      const answer = await api<Ok<'replayWebhook'>>('POST', `/v1/webhooks/${hook.webhook_id}/replay`, { appId, body });
      setQueued(`${answer.queued} queued.`);
      onQueued();
    });
  return (
    <section aria-labelledby="replay">
      <h2 id="replay">Replay</h2>
      <Form onSubmit={replay} label="Replay events">
        <Field label="Replay the events since" type="datetime-local" required value={since} onValue={setSince} hint="Your local time. Every event since then that the endpoint's event types select is sent again, with the event's own webhook-id (at most 50,000, the newest)." />
        <button type="submit" disabled={action.busy}>
          Replay events
        </button>
      </Form>
      <Notice text={queued} />
      <Problem error={action.error} />
    </section>
  );
}
