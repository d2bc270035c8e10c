// Upload a file into a bucket (PUT /v1/buckets/{id}/objects/{key}, owned by the app): a key (the file's
// name unless one is typed), a <progress> that follows the bytes as they leave, the stored object after.
import { useId, useState } from 'preact/hooks';
import { upload } from '../../transfer.js';
import { Field, Form } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';
import { bytes, objectPath, type StoredObject } from './model.js';

export function Upload({ appId, bucketId, onUploaded }: { appId: string; bucketId: string; onUploaded: (object: StoredObject) => void }) {
  const fileId = useId();
  const progressId = useId();
  const [file, setFile] = useState<File | undefined>(undefined);
  const [key, setKey] = useState('');
  const [percent, setPercent] = useState<number | undefined>(undefined);
  const [stored, setStored] = useState<string | undefined>(undefined);
  const send = useAction();
  const submit = () =>
    send.run(async () => {
      if (!file) throw new Error('choose a file to upload');
      const name = key.trim() || file.name;
      setStored(undefined);
      setPercent(0);
      const object = await upload<StoredObject>(objectPath(bucketId, { key: name, user_id: null, organization_id: null }), file, appId, setPercent);
      setStored(`Uploaded ${object.key} (${bytes(object.size_bytes)}, ${object.content_type}).`);
      setKey('');
      onUploaded(object);
    });
  return (
    <section aria-labelledby="upload">
      <h2 id="upload">Upload a file</h2>
      <Form onSubmit={submit} label="Upload a file">
        <div class="field">
          <label for={fileId}>File</label>
          <input id={fileId} type="file" required onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0])} />
        </div>
        <Field label="Object key (optional)" value={key} onValue={setKey} autoComplete="off" spellcheck={false} hint="The file's name unless you type one; may hold / (photos/2026/a.jpg). The same key replaces the object." />
        <button type="submit" disabled={send.busy}>
          Upload
        </button>
      </Form>
      {percent !== undefined && (
        <div class="field upload-progress">
          <label for={progressId}>Upload progress</label>
          <progress id={progressId} max={100} value={percent}>{`${percent} %`}</progress>
          <p class="hint" aria-live="polite">{`${percent} % sent`}</p>
        </div>
      )}
      <Problem error={send.error} />
      <Notice text={stored} />
    </section>
  );
}
