// Whether an error means the database could not be reached (answered 503 with Retry-After, not 500): a
// question for the store's dialect, asked by the HTTP error and availability plugins through here.
export { connectionFailure, type ConnectionFailure } from '../store/dialect.js';
