/** Time is injected so expiry and rotation are testable without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const iso = (date: Date) => date.toISOString();
export const addSeconds = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);
