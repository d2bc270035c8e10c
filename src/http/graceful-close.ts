import type { Server } from 'node:http';

/**
 * Prepares the HTTP server for a close that cuts no accepted request. Node's server.close() first closes
 * every connection it deems idle, and a connection accepted a moment ago whose request has not been read
 * yet counts as idle: its client would see a reset. So the first sweep is skipped; instead idle
 * connections are closed every 250 ms from then on, once requests have been read (those in flight
 * finish, then their kept-alive connections close instead of holding the process open).
 */
export function closeIdleConnectionsLater(server: Server): void {
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {};
  setInterval(closeIdle, 250).unref();
}
