import { Transform } from 'node:stream';

/** Passes bytes through and fails the stream unless exactly `size` of them arrive (a cut or padded body). */
export function exactLength(size: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > size) return done(new BodyLengthError(`body is longer than its ${size} bytes`));
      done(null, chunk);
    },
    flush(done) {
      done(seen === size ? null : new BodyLengthError(`body ended after ${seen} of ${size} bytes`));
    },
  });
}

export class BodyLengthError extends Error {}
