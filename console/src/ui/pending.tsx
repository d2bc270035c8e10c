import { Problem } from './problem.js';

interface LoadState {
  data: unknown;
  error: unknown;
  loading: boolean;
}

/**
 * What stands in for a useLoad's data before it can be shown: the server's refusal (role="alert") if it
 * refused, else the loading line `text`. For a page that returns it while `load.error || !load.data`.
 */
export function Pending({ load, text }: { load: LoadState; text: string }) {
  return load.error !== undefined && load.error !== null ? <Problem error={load.error} /> : <p class="loading">{text}</p>;
}

/**
 * A useLoad's refusal and loading line above where its data is drawn: the loading line while nothing is
 * loaded yet, or (`reloading`) also while another page of it loads over the one shown.
 */
export function LoadStatus({ load, text, reloading = false }: { load: LoadState; text: string; reloading?: boolean }) {
  return (
    <>
      <Problem error={load.error} />
      {load.loading && (reloading || load.data === undefined) && <p class="loading">{text}</p>}
    </>
  );
}
