// A bar chart drawn as inline SVG (no library; classes only, the CSP has no 'unsafe-inline'), with its numbers
// in a table under it: one group of bars per label (a day, a webhook), one bar per series.
export interface Series {
  name: string;
  values: number[];
}

const WIDTH = 600;
const HEIGHT = 160;
const TOP = 12;
const BOTTOM = 20;

/** "3 sign-ups, 5 sign-ins in total" style summary for the svg's accessible name. */
const summary = (series: Series[], unit: string, format: (n: number) => string) => series.map((s) => `${format(s.values.reduce((a, b) => a + b, 0))} ${s.name}`).join(', ') + ` ${unit}`;

/** `columns`: more numbers of each label, in the table only (the counts behind a rate). */
export function BarChart({ title, labels, series, labelHeader, unit = 'in total', format = String, max, columns = [] }: { title: string; labels: string[]; series: Series[]; labelHeader: string; unit?: string; format?: (n: number) => string; max?: number; columns?: Series[] }) {
  const top = Math.max(max ?? 0, 1, ...series.flatMap((s) => s.values));
  const group = WIDTH / Math.max(labels.length, 1);
  const bar = Math.max((group * 0.8) / series.length, 1);
  const scale = (v: number) => ((HEIGHT - TOP - BOTTOM) * v) / top;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${title}: ${unit === 'in total' ? summary(series, unit, String) : unit}`} class="chart-svg">
        <line x1="0" y1={HEIGHT - BOTTOM} x2={WIDTH} y2={HEIGHT - BOTTOM} class="axis" />
        <text x="2" y="10" class="chart-scale">{`max ${format(top)}`}</text>
        {labels.map((label, i) =>
          series.map((s, j) => {
            const h = scale(s.values[i] ?? 0);
            return <rect key={`${label}-${s.name}`} x={i * group + group * 0.1 + j * bar} y={HEIGHT - BOTTOM - h} width={bar} height={h} class={`bar series-${j}`} />;
          }),
        )}
        {labels.length > 0 && <text x="0" y={HEIGHT - 4} class="chart-scale">{labels[0]}</text>}
        {labels.length > 1 && <text x={WIDTH} y={HEIGHT - 4} class="chart-scale end">{labels[labels.length - 1]}</text>}
      </svg>
      {series.length > 1 && (
        <ul class="legend">
          {series.map((s, j) => (
            <li key={s.name}>
              <span class={`swatch series-${j}`} aria-hidden="true" />
              {s.name}
            </li>
          ))}
        </ul>
      )}
      <div class="table-wrap">
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">{labelHeader}</th>
              {[...series, ...columns].map((s) => (
                <th scope="col" key={s.name}>
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, i) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {series.map((s) => (
                  <td key={s.name}>{format(s.values[i] ?? 0)}</td>
                ))}
                {columns.map((s) => (
                  <td key={s.name}>{s.values[i] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
