import { toProducerId, toSequence } from '@klog/core';
import type { PlannedBatch } from './batch-plan.js';
import {
  CORE_WINDOW,
  logEndOffset,
  MODEL_EPOCH,
  MODEL_PRODUCER_ID,
  type ModelWindow,
} from './model-broker.js';
import type { Counterexample } from './model-checker.js';
import { type Answer, answerFor } from './model-state.js';

/**
 * What real clients do with `OUT_OF_ORDER_SEQUENCE_NUMBER` (Kafka error 45) for a batch the
 * broker had in fact written, read from their source (KafkaJS 2.2.4, librdkafka 2.0.2,
 * @platformatic/kafka 1.35; see the team's research notes on Kafka clients). Where a client
 * sends again, the broker's answer is computed with core's real `judge`, not assumed.
 */
export type ClientReaction =
  /** librdkafka (kcat, confluent-kafka): 45 on the oldest batch in flight is fatal; kcat exits 1. */
  | {
      readonly client: 'librdkafka';
      readonly kind: 'fatal';
      readonly batch: number;
      readonly onLog: readonly [number, number];
    }
  /** librdkafka: 45 on a later batch bumps the epoch locally and retries. */
  | { readonly client: 'librdkafka'; readonly kind: 'epoch-bump'; readonly batch: number }
  /** KafkaJS: rejects the send and rolls its sequence back, so the same sequence goes out again. */
  | {
      readonly client: 'kafkajs';
      readonly kind: 'reject-and-rewind';
      readonly batch: number;
      readonly resent: string;
      readonly answer: Answer;
    }
  /** @platformatic/kafka: once, takes a new producer id and sends again from sequence 0. */
  | {
      readonly client: 'platformatic';
      readonly kind: 'new-producer-id';
      readonly batch: number;
      readonly producerId: number;
      readonly resent: string;
      /** An `Append` here writes the batch's records a second time. */
      readonly answer: Answer;
      readonly onLog: readonly [number, number];
    };

/** Each client's next move after the counterexample's last step, for a batch reported failed though written. */
export function clientReactions(
  counterexample: Counterexample,
  plan: readonly PlannedBatch[],
  impl: ModelWindow = CORE_WINDOW,
): ClientReaction[] {
  const { violation, steps } = counterexample;
  const last = steps.at(-1)?.after;
  if (violation.kind !== 'written-but-failed' || last === undefined) return [];
  const batch = plan[violation.batch]!;
  const onLog = [violation.firstOffset, violation.lastOffset] as const;
  const entry = last.broker.entry;
  // Head of line: nothing older than it is still waiting for an answer.
  const headOfLine = last.producer
    .slice(0, batch.index)
    .every((s) => s.kind === 'acked' || s.kind === 'failed');

  const leo = logEndOffset(last.broker.log);
  const sameAgain = impl.judge(entry, MODEL_EPOCH, batch.firstSeq, batch.lastSeq);
  const newId = toProducerId(MODEL_PRODUCER_ID + 1);
  const fromZero = impl.judge(
    new impl.ProducerStateEntry(newId),
    MODEL_EPOCH,
    toSequence(0),
    toSequence(batch.records - 1),
  );
  return [
    headOfLine
      ? { client: 'librdkafka', kind: 'fatal', batch: batch.index, onLog }
      : { client: 'librdkafka', kind: 'epoch-bump', batch: batch.index },
    {
      client: 'kafkajs',
      kind: 'reject-and-rewind',
      batch: batch.index,
      resent: `${batch.firstSeq}..${batch.lastSeq}`,
      answer: answerFor(sameAgain, leo, batch.records),
    },
    {
      client: 'platformatic',
      kind: 'new-producer-id',
      batch: batch.index,
      producerId: newId,
      resent: `0..${batch.records - 1}`,
      answer: answerFor(fromZero, leo, batch.records),
      onLog,
    },
  ];
}
