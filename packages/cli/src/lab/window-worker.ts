// The thread that holds a learner's windows for `klog serve --window`: the broker asks it, synchronously,
// what to do with each idempotent batch; a throw is answered as an error, and a hang is the broker's to end.
import { resolve } from 'node:path';
import { type MessagePort, workerData } from 'node:worker_threads';
import type { BatchHeaderFields, ProducerEpoch, ProducerId, Sequence, WindowEntry } from '@klog/core';
import { guardWindow, LearnerThrew } from './guard.js';
import { firstLine, loadWindowFile } from './load-window.js';
import type { HostReply, HostRequest } from './window-protocol.js';

const { file, port, cell, done } = workerData as {
  file: string;
  port: MessagePort;
  cell: SharedArrayBuffer;
  done: SharedArrayBuffer;
};
const flag = new Int32Array(done);
const calls = { cell: new Int32Array(cell), names: [] as string[] };

function reply(message: HostReply): void {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

let lab: ReturnType<typeof loadWindowFile> | undefined;
try {
  lab = guardWindow(loadWindowFile(file), calls, resolve(file));
  reply({ kind: 'ready', names: calls.names });
} catch (error) {
  reply({ kind: 'failed', message: firstLine(error).replace(/^LabFileError: /, '') });
}

/** Each partition's producers, as the learner's `addBatchFromHeader` and `appendBatch` keep them. */
const partitions = new Map<string, Map<ProducerId, WindowEntry>>();

function rebuild(headers: readonly BatchHeaderFields[]): Map<ProducerId, WindowEntry> {
  const state = new Map<ProducerId, WindowEntry>();
  for (const header of headers) lab!.addBatchFromHeader(state, header);
  return state;
}

function decide(request: HostRequest): HostReply {
  const { batch } = request;
  const partition = `${batch.topic}-${batch.partition}`;
  let state = partitions.get(partition);
  if (state === undefined) {
    if (request.headers === undefined) return { kind: 'need-headers' };
    state = rebuild(request.headers);
    partitions.set(partition, state);
  }
  const producerId = batch.producerId as ProducerId;
  let entry = state.get(producerId);
  if (entry === undefined) {
    entry = new lab!.ProducerStateEntry(producerId);
    state.set(producerId, entry);
  }
  let wrote: number | undefined;
  const log = {
    logEndOffset: batch.logEndOffset,
    append(records: number) {
      if (wrote !== undefined) throw new Error('log.append was called twice for one batch');
      if (records !== batch.records) {
        throw new Error(`log.append(${records}): the batch holds ${batch.records} records`);
      }
      wrote = records;
      return {
        firstOffset: batch.logEndOffset,
        lastOffset: batch.logEndOffset + records - 1,
        timestamp: batch.maxTimestamp,
      };
    },
  };
  const answer = lab!.appendBatch(
    entry,
    {
      producerId,
      epoch: batch.producerEpoch as ProducerEpoch,
      firstSeq: batch.baseSequence as Sequence,
      records: batch.records,
    },
    log,
  );
  // Copied field by field: what crosses to the broker is plain data, whatever the learner returned.
  const a = answer as unknown as Record<string, unknown>;
  return {
    kind: 'decided',
    wrote: wrote !== undefined,
    answer: {
      kind: a['kind'],
      firstOffset: a['firstOffset'],
      lastOffset: a['lastOffset'],
      timestamp: a['timestamp'],
      expected: a['expected'],
      got: a['got'],
    },
  };
}

port.on('message', (request: HostRequest) => {
  if (lab === undefined) return;
  try {
    reply(decide(request));
  } catch (error) {
    reply({
      kind: 'threw',
      message:
        error instanceof LearnerThrew
          ? `your ${error.fn} threw ${firstLine(error.thrown)}${error.where === undefined ? '' : ` (at ${error.where})`}`
          : firstLine(error),
    });
  }
});
