import {
  BatchMetadata,
  type ProducerEpoch,
  type ProducerId,
  ProducerStateEntry,
  type Sequence,
} from '../src/index.js';

export const seq = (n: number) => n as Sequence;
export const epoch = (n: number) => n as ProducerEpoch;
export const pid = (n: number) => n as ProducerId;

/** An entry that has appended `ranges` (inclusive [first, last]) at consecutive offsets from 0. */
export function entryWith(ranges: ReadonlyArray<readonly [number, number]>, ep = 0, startOffset = 0) {
  const entry = new ProducerStateEntry(pid(1000));
  let offset = startOffset;
  for (const [first, last] of ranges) {
    const delta = last >= first ? last - first : last + 2_147_483_648 - first;
    entry.addBatch(
      epoch(ep),
      new BatchMetadata(seq(last), offset + delta, delta, 1_700_000_000_000 + offset),
    );
    offset += delta + 1;
  }
  return entry;
}
