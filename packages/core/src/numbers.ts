/**
 * Validated numbers at the boundaries. Kafka keeps producer ids and offsets in a
 * Java `long`; klog keeps them in a JS `number`, so every value that enters from
 * outside (a decoded header, a CLI flag) is checked to be a safe integer in the
 * range its Kafka field allows. Inside, the brands tell a reader which number is which.
 */

declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

/** A sequence number: 0 .. 2^31-1 (a Java `int` that never goes negative). */
export type Sequence = Brand<number, 'Sequence'>;
/** A producer id handed out by InitProducerId: 0 .. 2^53-1 here (Java `long` on the wire). */
export type ProducerId = Brand<number, 'ProducerId'>;
/** A producer epoch: 0 .. 32767 (a Java `short`; -1 means "no producer"). */
export type ProducerEpoch = Brand<number, 'ProducerEpoch'>;

/** Largest sequence number; the next one after it is 0 (see `incrementSequence`). */
export const MAX_SEQUENCE = 2_147_483_647;
export const MAX_PRODUCER_EPOCH = 32_767;

/** Thrown when a number from outside does not fit the field it is meant for. */
export class InvalidNumberError extends RangeError {
  override readonly name = 'InvalidNumberError';
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly allowed: string,
  ) {
    super(`${field} must be ${allowed}, got ${String(value)}`);
  }
}

function checkInteger(field: string, value: number, min: number, max: number, allowed: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidNumberError(field, value, allowed);
  }
  return value;
}

export function toSequence(value: number, field = 'sequence'): Sequence {
  return checkInteger(field, value, 0, MAX_SEQUENCE, `an integer in 0..${MAX_SEQUENCE}`) as Sequence;
}

export function toProducerId(value: number, field = 'producer id'): ProducerId {
  return checkInteger(field, value, 0, Number.MAX_SAFE_INTEGER, 'a safe integer >= 0') as ProducerId;
}

export function toProducerEpoch(value: number, field = 'producer epoch'): ProducerEpoch {
  return checkInteger(
    field,
    value,
    0,
    MAX_PRODUCER_EPOCH,
    `an integer in 0..${MAX_PRODUCER_EPOCH}`,
  ) as ProducerEpoch;
}
