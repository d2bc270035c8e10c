// /console/t/:tenant/apps/:app/buckets: the app's buckets (GET /v1/buckets with X-App-Id) with what they hold,
// a new bucket (POST /v1/buckets) and a bucket deleted after its name is typed (DELETE /v1/buckets/{id}).
// Owners and admins write; a viewer sees the list.
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link } from '../router.js';
import { canWrite } from '../store.js';
import { TypedConfirm } from '../ui/confirm.js';
import { Choice, Field, Form } from '../ui/fields.js';
import { useAction, useLoad } from '../ui/load.js';
import { LoadStatus } from '../ui/pending.js';
import { Notice, Problem } from '../ui/problem.js';
import { bucketHref, bytes, type Bucket } from './buckets/model.js';

function NewBucket({ appId, onCreated }: { appId: string; onCreated: (bucket: Bucket) => void }) {
  const [name, setName] = useState('');
  const create = useAction();
  const submit = () =>
    create.run(async () => {
      const bucket = await api<Ok<'createBucket'>>('POST', '/v1/buckets', { appId, body: { name: name.trim() } satisfies Body<'createBucket'> });
      setName('');
      onCreated(bucket);
    });
  return (
    <section aria-labelledby="new-bucket">
      <h2 id="new-bucket">New bucket</h2>
      <Form onSubmit={submit} label="New bucket">
        <Field label="Bucket name" value={name} onValue={setName} required autoComplete="off" spellcheck={false} hint="1 to 63 of a-z, 0-9, '.', '_' and '-', unique in the app." />
        <button type="submit" disabled={create.busy}>
          Create bucket
        </button>
      </Form>
      <Problem error={create.error} />
    </section>
  );
}

function DeleteBucket({ appId, buckets, onDeleted }: { appId: string; buckets: Bucket[]; onDeleted: (name: string) => void }) {
  const [chosen, setChosen] = useState(buckets[0]?.bucket_id ?? '');
  const remove = useAction();
  const bucket = buckets.find((b) => b.bucket_id === chosen) ?? buckets[0];
  if (!bucket) return null;
  const destroy = () =>
    remove.run(async () => {
      await api('DELETE', `/v1/buckets/${bucket.bucket_id}`, { appId });
      onDeleted(bucket.name);
    });
  return (
    <section aria-labelledby="delete-bucket">
      <h2 id="delete-bucket">Delete a bucket</h2>
      <Choice label="Bucket to delete" value={bucket.bucket_id} onValue={setChosen} options={buckets.map((b) => [b.bucket_id, b.name])} hint="Its objects go with it." />
      <TypedConfirm key={bucket.bucket_id} what={`the bucket ${bucket.name}`} expected={bucket.name} action={remove} onConfirm={destroy} />
    </section>
  );
}

export function BucketsPage({ params, tenant }: PageProps) {
  const appId = params.app!;
  const tenantId = params.tenant!;
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const list = useLoad(() => api<Ok<'listBuckets'>>('GET', '/v1/buckets', { appId }), [appId]);
  return (
    <>
      <LoadStatus load={list} text="Loading buckets…" />
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <caption>{`Buckets: ${list.data.buckets.length}`}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Objects</th>
                  <th scope="col">Used</th>
                  <th scope="col">Limit</th>
                  <th scope="col">Limit per user</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.buckets.map((b) => (
                  <tr key={b.bucket_id}>
                    <td>
                      <Link href={bucketHref(tenantId, appId, b.bucket_id)}>{b.name}</Link>
                    </td>
                    <td>{b.object_count}</td>
                    <td>{bytes(b.used_bytes)}</td>
                    <td>{bytes(b.max_size_bytes)}</td>
                    <td>{bytes(b.max_size_bytes_per_user)}</td>
                    <td>
                      <time dateTime={b.created_at}>{b.created_at.slice(0, 10)}</time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.data.buckets.length === 0 && <p>This app has no buckets yet.</p>}
        </>
      )}
      {canWrite(tenant?.role) && (
        <>
          <Notice text={notice} />
          <NewBucket
            appId={appId}
            onCreated={(bucket) => {
              setNotice(`Created the bucket ${bucket.name}.`);
              list.reload();
            }}
          />
          {list.data && list.data.buckets.length > 0 && (
            <DeleteBucket
              key={list.data.buckets.map((b) => b.bucket_id).join()}
              appId={appId}
              buckets={list.data.buckets}
              onDeleted={(name) => {
                setNotice(`Deleted the bucket ${name}.`);
                list.reload();
              }}
            />
          )}
        </>
      )}
    </>
  );
}
