import { describe, expect, it } from 'vitest';
import { connectionFailure, isUniqueViolation } from './dialect.js';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('connection-class failures (503 with Retry-After)', () => {
  it('names the cause of PostgreSQL and socket errors by code', () => {
    expect(connectionFailure(coded('ECONNREFUSED'))).toBe('refused');
    expect(connectionFailure(coded('ECONNRESET'))).toBe('reset');
    expect(connectionFailure(coded('57P01', 'terminating connection due to administrator command'))).toBe('shutting_down');
    expect(connectionFailure(coded('57P03', 'the database system is starting up'))).toBe('starting_up');
    expect(connectionFailure(coded('57014', 'canceling statement due to statement timeout'))).toBe('query_timeout');
    expect(connectionFailure(coded('SQLITE_BUSY', 'database is locked'))).toBe('busy');
    expect(connectionFailure(coded('40P01', 'deadlock detected'))).toBe('deadlock');
    expect(connectionFailure(coded('40001', 'could not serialize access due to read/write dependencies among transactions'))).toBe('serialization');
    expect(connectionFailure(coded('55P03', 'canceling statement due to lock timeout'))).toBe('lock_timeout');
  });

  it("names node-postgres' worded errors: pool wait, read timeout, terminated connection", () => {
    expect(connectionFailure(new Error('timeout exceeded when trying to connect'))).toBe('pool_timeout');
    expect(connectionFailure(new Error('Connection terminated due to connection timeout'))).toBe('pool_timeout');
    expect(connectionFailure(new Error('Query read timeout'))).toBe('query_timeout');
    expect(connectionFailure(new Error('Connection terminated unexpectedly'))).toBe('reset');
    expect(connectionFailure(new Error('Client has encountered a connection error and is not queryable'))).toBe('reset');
  });

  it('looks through causes', () => {
    expect(connectionFailure(new Error('wrapped', { cause: coded('ECONNREFUSED') }))).toBe('refused');
  });

  it('leaves every other error alone (a bug stays a 500)', () => {
    expect(connectionFailure(coded('23505', 'duplicate key'))).toBeUndefined();
    expect(connectionFailure(coded('3D000', 'database "x" does not exist'))).toBeUndefined();
    expect(connectionFailure(new TypeError('undefined is not a function'))).toBeUndefined();
    expect(connectionFailure(undefined)).toBeUndefined();
    expect(isUniqueViolation(coded('23505'))).toBe(true);
  });
});
