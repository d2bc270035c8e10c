// The Import page's progress (a <progress> of the users handled out of the file's total, with the counts)
// and the failures, each by its place in the file, its masked address, the server's code and detail.
import { useId } from 'preact/hooks';
import { LISTED_FAILURES, type Progress } from './run.js';

export function ImportProgress({ fileName, progress, running, stopped }: { fileName: string; progress: Progress; running: boolean; stopped: boolean }) {
  const id = useId();
  const { total, done, created, skipped, failed } = progress;
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{running ? `Importing ${fileName}…` : `${fileName}: import ${stopped ? 'stopped' : 'finished'}`}</h2>
      <p id={`${id}-label`} class="progress-label">
        Users handled
      </p>
      <progress id={id} aria-labelledby={`${id}-label`} max={Math.max(total, 1)} value={total === 0 ? 1 : done} aria-describedby={`${id}-counts`} />
      <p id={`${id}-counts`} role="status" class="counts">
        {`${done} of ${total} users: imported ${created}, skipped ${skipped}, failed ${failed}`}
      </p>
      {progress.failures.length > 0 && <Failures progress={progress} />}
    </section>
  );
}

function Failures({ progress }: { progress: Progress }) {
  const listed = progress.failures.length;
  return (
    <div class="table-wrap">
      <table>
        <caption>{progress.failed > listed ? `Failed users: ${progress.failed} (the first ${LISTED_FAILURES} listed)` : `Failed users: ${progress.failed}`}</caption>
        <thead>
          <tr>
            <th scope="col">User in the file</th>
            <th scope="col">Email</th>
            <th scope="col">Code</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {progress.failures.map((failure) => (
            <tr key={failure.place}>
              <td>{failure.place}</td>
              <td>{failure.email ?? '–'}</td>
              <td>
                <code>{failure.code}</code>
              </td>
              <td>{failure.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
