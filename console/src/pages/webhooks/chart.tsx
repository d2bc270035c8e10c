// The 24-hour success rate of an endpoint: one bar (inline SVG, drawn here: no chart library; colours by class,
// the CSP forbids inline styles), and its numbers in a table beside it.
import type { Webhook } from './model.js';
import { successRate } from './model.js';

const WIDTH = 300;
const HEIGHT = 24;

export function SuccessChart({ stats }: { stats: Webhook['stats'] }) {
  const total = stats.succeeded_24h + stats.failed_24h;
  const ok = total === 0 ? 0 : Math.round((WIDTH * stats.succeeded_24h) / total);
  const label = `Success rate in the last 24 hours: ${successRate(stats)}; ${stats.failed_24h} failed.`;
  return (
    <section aria-labelledby="rate">
      <h2 id="rate">Success in the last 24 hours</h2>
      <div class="chart">
        <svg role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width={WIDTH} height={HEIGHT} class="rate-bar">
          <rect x="0" y="0" width={WIDTH} height={HEIGHT} class="bar-none" />
          {ok > 0 && <rect x="0" y="0" width={ok} height={HEIGHT} class="bar-ok" />}
          {total > 0 && ok < WIDTH && <rect x={ok} y="0" width={WIDTH - ok} height={HEIGHT} class="bar-failed" />}
        </svg>
        <div class="table-wrap">
          <table>
            <caption>Deliveries in the last 24 hours</caption>
            <thead>
              <tr>
                <th scope="col">Succeeded</th>
                <th scope="col">Failed</th>
                <th scope="col">Success rate</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>{stats.succeeded_24h}</td>
                <td>{stats.failed_24h}</td>
                <td>{successRate(stats)}</td>
              </tr>
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}
