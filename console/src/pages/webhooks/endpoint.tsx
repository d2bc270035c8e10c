// /console/t/:tenant/apps/:app/webhooks/:webhook: one endpoint (GET /v1/webhooks/{id}): its settings (edit:
// owner, admin), the 24-hour success rate as a chart with its numbers, a test event, the secret's rotation, a
// replay, its deliveries (deliveries.tsx) and its deletion behind a typed confirmation. A viewer reads all.
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import type { PageProps } from '../../routes.js';
import { Link, navigate } from '../../router.js';
import { canWrite } from '../../store.js';
import { TypedConfirm } from '../../ui/confirm.js';
import { useAction, useLoad } from '../../ui/load.js';
import { Pending } from '../../ui/pending.js';
import { RotateSecret, Replay, SendTest } from './actions.js';
import { SuccessChart } from './chart.js';
import { Deliveries } from './deliveries.js';
import { EditWebhook, Settings } from './edit.js';
import { webhookHref, webhooksHref, type Webhook } from './model.js';

export function WebhookPage({ params, query, tenant }: PageProps) {
  const appId = params.app!;
  const tenantId = params.tenant!;
  const webhookId = params.webhook!;
  const loaded = useLoad(() => api<Webhook>('GET', `/v1/webhooks/${webhookId}`, { appId }), [appId, webhookId]);
  // Bumped after a test, a replay, a retry or Refresh: the deliveries table and the stats load again.
  const [version, setVersion] = useState(0);
  const remove = useAction();
  const writer = canWrite(tenant?.role);
  const hook = loaded.data?.webhook_id === webhookId ? loaded.data : undefined;
  if (loaded.error || !hook) return <Pending load={loaded} text="Loading the endpoint…" />;
  const changed = () => (setVersion((n) => n + 1), loaded.reload());
  const destroy = () =>
    remove.run(async () => {
      await api('DELETE', `/v1/webhooks/${hook.webhook_id}`, { appId });
      navigate(webhooksHref(tenantId, appId));
    });
  return (
    <>
      <p>
        <Link href={webhooksHref(tenantId, appId)}>All endpoints</Link> · <strong>{hook.url}</strong> · <code>{hook.webhook_id}</code>
      </p>
      <section aria-labelledby="endpoint-settings">
        <h2 id="endpoint-settings">Settings</h2>
        {writer ? <EditWebhook appId={appId} hook={hook} onSaved={changed} /> : <Settings hook={hook} />}
      </section>
      <SuccessChart stats={hook.stats} />
      {writer && (
        <>
          <SendTest appId={appId} hook={hook} onSent={changed} />
          <RotateSecret appId={appId} hook={hook} />
          <Replay appId={appId} hook={hook} onQueued={changed} />
        </>
      )}
      <Deliveries appId={appId} webhookId={hook.webhook_id} base={webhookHref(tenantId, appId, hook.webhook_id)} query={query} writer={writer} version={version} onRefresh={changed} />
      {writer && <TypedConfirm what="this endpoint" expected={hook.url} action={remove} onConfirm={destroy} />}
    </>
  );
}
