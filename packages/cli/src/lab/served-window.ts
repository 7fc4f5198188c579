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
      const decided = host.decide(batch, activeHeaders);
      if (decided.kind === 'decided') return decided.decision;
      const partition = `${batch.topic}-${batch.partition}`;
      onFailure(
        `window: ${decided.message}; the Produce to ${partition} is answered UNKNOWN_SERVER_ERROR, nothing written`,
      );
      throw new StorageError('UNKNOWN_SERVER_ERROR', `klog serve --window ${host.file}: ${decided.message}`);
    },
  };
}
