import type { ProducerEpoch } from './numbers.js';
import type { Verdict } from './verdict.js';

/** A batch under an epoch older than the producer's (a zombie): Kafka error 47. */
export type InvalidProducerEpoch = {
  readonly kind: 'InvalidProducerEpoch';
  readonly current: ProducerEpoch;
  readonly got: ProducerEpoch;
};

/**
 * What the broker answers a producer's batch, under any rule: the chapter's three verdicts (`Verdict`), or,
 * under a rule with epoch checks, a fenced epoch.
 */
export type ProducerVerdict = Verdict | InvalidProducerEpoch;
