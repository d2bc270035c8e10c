import { resolve } from 'node:path';
import { build } from 'rolldown';

// @gatehouse/client as a browser loads it: packages/client/dist (built) bundled by Rolldown with its
// proof-of-work worker, as examples/web/serve.mjs serves it. Path (`/client/index.js`, ...) → code.
export async function clientBundle(): Promise<Map<string, string>> {
  const dist = resolve(import.meta.dirname, '../../packages/client/dist');
  const result = await build({
    input: { index: `${dist}/index.js`, 'pow-worker': `${dist}/pow-worker.js` },
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    output: { format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name].js' },
  });
  return new Map(result.output.flatMap((chunk) => (chunk.type === 'chunk' ? [[`/client/${chunk.fileName}`, chunk.code] as [string, string]] : [])));
}
