// Every failure the runtime reports is a TensorirError whose message starts with "tensorir: "
// and says what went wrong and what to do about it.

export class TensorirError extends Error {
  constructor(message) {
    super(`tensorir: ${message}`);
    this.name = 'TensorirError';
  }
}

export function fail(message) {
  throw new TensorirError(message);
}

export function check(cond, message) {
  if (!cond) fail(typeof message === 'function' ? message() : message);
}
