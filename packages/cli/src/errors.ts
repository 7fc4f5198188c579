/** Bad input from the user: one line on stderr, exit code 2, no stack trace. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A claim the demo printed did not hold when checked: what was expected, what happened, exit code 1. */
export class CheckFailed extends Error {
  override readonly name = 'CheckFailed';
  /** Where the run's partitions were left for inspection. */
  keptAt: string | undefined;
  constructor(
    readonly claim: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`check failed: ${claim}\n  expected: ${expected}\n  actual:   ${actual}`);
  }
}

/** `klog dump-log` found data that is not what it should be: what and where, exit code 1. */
export class CorruptData extends Error {
  override readonly name = 'CorruptData';
}

/**
 * Whoever read klog's output has gone (`klog dump-log … | head -2` closed the pipe):
 * the command stops, nothing more is printed, and the exit code is 141, as for a
 * process a SIGPIPE ended.
 */
export class OutputClosed extends Error {
  override readonly name = 'OutputClosed';
  constructor() {
    super('the output was closed by its reader');
  }
}

/** `klog model-check` found a schedule that breaks an invariant: the counterexample is on stdout, exit code 1. */
export class InvariantBroken extends Error {
  override readonly name = 'InvariantBroken';
}

/** `klog model-check` gave up before the end (too many states): nothing is proven either way, exit code 3. */
export class Inconclusive extends Error {
  override readonly name = 'Inconclusive';
}
