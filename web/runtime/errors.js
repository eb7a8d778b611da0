// Every failure the runtime reports is a TensorirError whose message starts with "tensorir: "
// and says what went wrong and what to do about it. Where the runtime wraps an error it did
// not foresee (a TypeError from a file of a shape no check expected), that error is the
// TensorirError's `cause`: a bug in the runtime's checks, for tests to find.

export class TensorirError extends Error {
  constructor(message, options) {
    super(`tensorir: ${message}`, options);
    this.name = 'TensorirError';
  }
}

export function fail(message) {
  throw new TensorirError(message);
}

export function check(cond, message) {
  if (!cond) fail(typeof message === 'function' ? message() : message);
}
