// The proof-of-work worker as one self-contained script (pow-worker.js with hash-wasm bundled in), for a
// Blob URL where no bundler shipped pow-worker.js (esbuild, Rolldown without a second entry). This file
// compiles to an empty string; build-worker-source.mjs (run by the package's build, after tsc) replaces
// dist/pow-worker-source.js with the bundled script. Empty means "not built": pow-browser.ts then skips it.
const source: string = '';
export default source;
