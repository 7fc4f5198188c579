// TEMPORARY, until storage's LogManager (issue 11) is merged into this branch: the broker over main's
// `Log` (real segment files), without the idempotent append. It lets the real clients' produce/fetch
// paths run early; the final tests run on storage's LogManager.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBatchHeader, Log } from '@klog/storage';
import { type BrokerLog, type BrokerPartition, LogError, type LogOptions } from '../../src/log-port.js';

export function interimLog(options: LogOptions): BrokerLog {
  mkdirSync(options.dataDir, { recursive: true });
  const logs = new Map<string, Log>();
  const counts = new Map<string, number>();
  const open = (topic: string, p: number) => {
    const log = Log.open(join(options.dataDir, `${topic}-${p}`), { segmentBytes: options.segmentBytes, maxBatchBytes: options.messageMaxBytes });
    logs.set(`${topic}-${p}`, log);
    counts.set(topic, Math.max(counts.get(topic) ?? 0, p + 1));
  };
  for (const name of readdirSync(options.dataDir)) {
    const m = /^(.+)-(\d+)$/.exec(name);
    if (m !== null) open(m[1]!, Number(m[2]));
  }
  const partition = (log: Log, topic: string, p: number): BrokerPartition => ({
    topic,
    partition: p,
    get logStartOffset() {
      return log.logStartOffset;
    },
    get logEndOffset() {
      return log.logEndOffset;
    },
    get highWatermark() {
      return log.logEndOffset;
    },
    get lastStableOffset() {
      return log.logEndOffset;
    },
    appendProducerBatch(bytes) {
      try {
        const info = log.appendBatch(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
        return { kind: 'Append', firstOffset: info.firstOffset, lastOffset: info.lastOffset, logAppendTimeMs: -1, logStartOffset: log.logStartOffset };
      } catch (error) {
        throw new LogError('CORRUPT_MESSAGE', (error as Error).message);
      }
    },
    fetch(offset, maxBytes) {
      const records = log.read(offset, maxBytes);
      return { records, highWatermark: log.logEndOffset, lastStableOffset: log.logEndOffset, logStartOffset: log.logStartOffset };
    },
    offsetForTimestamp(ts) {
      let at = log.logStartOffset;
      while (at < log.logEndOffset) {
        const bytes = log.read(at, 1);
        const h = decodeBatchHeader(bytes);
        if (h.maxTimestamp >= ts) return { offset: Math.max(at, h.baseOffset), timestamp: h.maxTimestamp };
        at = h.baseOffset + h.lastOffsetDelta + 1;
      }
      return undefined;
    },
  });
  return {
    topics: () => counts,
    partition(topic, p) {
      const log = logs.get(`${topic}-${p}`);
      return log === undefined ? undefined : partition(log, topic, p);
    },
    createTopic(topic, n) {
      if (counts.has(topic)) throw new LogError('TOPIC_ALREADY_EXISTS', `Topic '${topic}' already exists.`);
      for (let p = 0; p < n; p++) open(topic, p);
    },
    invalidTopicName: (t) => (/^[a-zA-Z0-9._-]{1,249}$/.test(t) && t !== '.' && t !== '..' ? undefined : `bad name ${t}`),
    close() {
      for (const log of logs.values()) log.close();
    },
  };
}
