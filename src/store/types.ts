// The schema's declarations are in store/schema/ (one per table); this module names them for the
// repositories and services that import them from here.
export * from './schema/index.js';
