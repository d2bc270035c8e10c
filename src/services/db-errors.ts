import type { ApiError } from '../errors.js';

/**
 * Runs `work`, answering a database error that `matches` recognises (a unique violation, a table dropped
 * meanwhile) with the API error `answer` makes; any other error passes on as it was.
 */
export async function answering<T>(matches: (error: unknown) => boolean, answer: () => ApiError, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (matches(error)) throw answer();
    throw error;
  }
}
