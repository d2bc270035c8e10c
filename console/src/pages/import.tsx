// /console/t/:tenant/apps/:app/import: users brought in from Firebase, Supabase, Auth0, Clerk or a Gatehouse
// file with their passwords (docs/import.md). The file is read in the browser with the CLI's readers and sent
// to POST /v1/users/import in batches of 1,000 (import/run.ts), a progress bar advancing per batch, then the
// failures listed. Owners and admins import; a viewer sees what the page is for and no control.
import { useId, useState } from 'preact/hooks';
import { FORMATS, parseHashConfig, type FirebaseHashConfig, type ImportFormat } from '../../../src/import-formats/index.js';
import type { PageProps } from '../routes.js';
import { canWrite } from '../store.js';
import { Choice, Form, TextArea } from '../ui/fields.js';
import { useAction } from '../ui/load.js';
import { Problem } from '../ui/problem.js';
import { ImportProgress } from './import/results.js';
import { importFile, type Progress } from './import/run.js';

const FORMAT_NAMES: Record<ImportFormat, string> = {
  supabase: 'Supabase: auth.users as CSV or JSON',
  firebase: 'Firebase: firebase auth:export (JSON)',
  auth0: 'Auth0: the export (NDJSON) or the bulk import JSON',
  clerk: 'Clerk: the users export (CSV)',
  gatehouse: "Gatehouse: the API's user objects (NDJSON or JSON)",
};

const FORMAT_HINTS: Record<ImportFormat, string> = {
  supabase: "\\copy (select * from auth.users) to 'users.csv' with csv header. Bcrypt passwords are kept.",
  firebase: 'firebase auth:export users.json --format=json. Scrypt passwords need the project’s password hash parameters below.',
  auth0: 'The password hash export Auth0’s support hands out, a bulk export job’s NDJSON, or a file in its import schema.',
  clerk: 'Settings → Export users in the Clerk dashboard: its hashes and TOTP secrets are kept.',
  gatehouse: 'One user object of POST /v1/users/import a line, a JSON array of them, or {"users": [...]}.',
};

const ORDER: ImportFormat[] = ['supabase', 'firebase', 'auth0', 'clerk', 'gatehouse'].filter((f) => (FORMATS as readonly string[]).includes(f)) as ImportFormat[];

function FilePicker({ onFile }: { onFile: (file: File | undefined) => void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>Export file</label>
      <input id={id} type="file" accept=".csv,.json,.ndjson,.jsonl,.txt,text/csv,application/json" aria-describedby={`${id}-hint`} onChange={(e) => onFile((e.target as HTMLInputElement).files?.[0])} />
      <p class="hint" id={`${id}-hint`}>
        Read in this browser, 1,000 users at a time: the file itself is never uploaded.
      </p>
    </div>
  );
}

function ImportForm({ appId }: { appId: string }) {
  const [format, setFormat] = useState<ImportFormat>('supabase');
  const [file, setFile] = useState<File | undefined>(undefined);
  const [hashText, setHashText] = useState('');
  const [onConflict, setOnConflict] = useState<'skip' | 'error'>('error');
  const [unreadable, setUnreadable] = useState<string | undefined>(undefined);
  const [progress, setProgress] = useState<Progress | undefined>(undefined);
  const [fileName, setFileName] = useState('');
  const run = useAction();
  const submit = () => {
    setUnreadable(undefined);
    if (!file) return setUnreadable('Choose the export file first.');
    let hashConfig: FirebaseHashConfig | undefined;
    if (format === 'firebase' && hashText.trim() !== '') {
      try {
        hashConfig = parseHashConfig(hashText);
      } catch (error) {
        return setUnreadable(`The password hash parameters: ${(error as Error).message}.`);
      }
    }
    setProgress(undefined);
    setFileName(file.name);
    void run.run(() => importFile({ appId, file, format, hashConfig, onConflict, onProgress: setProgress }));
  };
  return (
    <>
      <section aria-labelledby="import-title">
        <h2 id="import-title">Import users from a file</h2>
        <Form onSubmit={submit} label="Import users">
          <Choice label="Format" value={format} onValue={(v) => setFormat(v as ImportFormat)} options={ORDER.map((f) => [f, FORMAT_NAMES[f]])} hint={FORMAT_HINTS[format]} />
          <FilePicker onFile={setFile} />
          {format === 'firebase' && (
            <TextArea
              label="Password hash parameters (Firebase)"
              value={hashText}
              onValue={setHashText}
              rows={6}
              hint="Authentication → Users → ⋮ → Password hash parameters in the Firebase console: paste the hash_config block (or the same keys as JSON). Without it, users with a password fail."
            />
          )}
          <Choice
            label="A user the app has already"
            value={onConflict}
            onValue={(v) => setOnConflict(v as 'skip' | 'error')}
            options={[
              ['error', 'Fails (listed below)'],
              ['skip', 'Is skipped (running the file again changes nothing)'],
            ]}
          />
          <button type="submit" disabled={run.busy}>
            Import
          </button>
        </Form>
        {unreadable && (
          <p class="problem" role="alert">
            {unreadable}
          </p>
        )}
        <Problem error={run.error} />
      </section>
      {run.busy && !progress && <p class="loading">Reading the file…</p>}
      {progress && <ImportProgress fileName={fileName} progress={progress} running={run.busy} stopped={run.error !== undefined} />}
    </>
  );
}

export function ImportPage({ params, tenant }: PageProps) {
  return (
    <>
      <p>
        Bring users from another service with their passwords: nobody has to reset one. Their first sign-in replaces the imported hash with
        Gatehouse’s own.
      </p>
      {canWrite(tenant?.role) ? <ImportForm appId={params.app!} /> : <p>Importing users needs the owner or admin role: your role reads only.</p>}
    </>
  );
}
