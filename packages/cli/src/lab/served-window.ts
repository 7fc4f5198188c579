import type { Sequence } from '@klog/core';
import { type ProducerWindow, StorageError } from '@klog/storage';
import type { WindowHost } from './window-host.js';

/**
 * The learner's window as the broker's ProducerWindow (`klog serve --window`): each idempotent batch goes
 * to their `appendBatch` on the host's worker. When their code throws, hangs or answers nonsense, the
 * Produce is answered UNKNOWN_SERVER_ERROR, nothing is written, `onFailure` logs why, and the broker goes on.
 */
export function servedWindow(host: WindowHost, onFailure: (line: string) => void): ProducerWindow {
  return {
    decide(batch, activeHeaders) {
      const partition = `${batch.topic}-${batch.partition}`;
      const decision = host.decide(
        partition,
        {
          producerId: batch.producerId,
          epoch: batch.producerEpoch,
          firstSeq: batch.baseSequence,
          records: batch.records,
          logEndOffset: batch.logEndOffset,
          timestamp: batch.maxTimestamp,
        },
        activeHeaders,
      );
      if (decision.kind === 'failed') {
        onFailure(
          `window: ${decision.message}; the Produce to ${partition} is answered UNKNOWN_SERVER_ERROR, nothing written`,
        );
        throw new StorageError(
          'UNKNOWN_SERVER_ERROR',
          `klog serve --window ${host.file}: ${decision.message}`,
        );
      }
      const { verdict } = decision;
      switch (verdict.kind) {
        case 'Append':
          return { verdict };
        case 'Duplicate':
          return { verdict, written: decision.write };
        case 'OutOfOrderSequence':
          return {
            verdict: { ...verdict, expected: verdict.expected as Sequence, got: verdict.got as Sequence },
            written: decision.write,
          };
      }
    },
  };
}
