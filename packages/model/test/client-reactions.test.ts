import { describe, expect, it } from 'vitest';
import { checkModel, clientReactions } from '../src/index.js';

describe('what real clients do next with the counterexample', () => {
  it('librdkafka fails fatally, KafkaJS is refused again, platformatic writes the batch twice', () => {
    const result = checkModel({ inFlight: 6 });
    if (result.outcome.holds) throw new Error('expected a counterexample');
    expect(clientReactions(result.outcome.counterexample, result.plan)).toEqual([
      { client: 'librdkafka', kind: 'fatal', batch: 0, onLog: [0, 1] },
      {
        client: 'kafkajs',
        kind: 'reject-and-rewind',
        batch: 0,
        resent: '0..1',
        answer: { kind: 'OutOfOrderSequence', expected: 11, got: 0 },
      },
      {
        client: 'platformatic',
        kind: 'new-producer-id',
        batch: 0,
        producerId: 1001,
        resent: '0..1',
        answer: { kind: 'Append', firstOffset: 11, lastOffset: 12 },
        onLog: [0, 1],
      },
    ]);
  });

  it('the answers come from the state the counterexample ends in', () => {
    const result = checkModel({ inFlight: 5, window: 4 });
    if (result.outcome.holds) throw new Error('expected a counterexample');
    const [, kafkajs, platformatic] = clientReactions(result.outcome.counterexample, result.plan);
    expect(kafkajs).toMatchObject({ answer: { kind: 'OutOfOrderSequence', expected: 10, got: 0 } });
    expect(platformatic).toMatchObject({ answer: { kind: 'Append', firstOffset: 10, lastOffset: 11 } });
  });
});
