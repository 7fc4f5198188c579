import { statfsSync } from 'node:fs';
import { DescribeLogDirs, type DescribeLogDirsResponse, ErrorCode } from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type Topic = DescribeLogDirsResponse.DescribeLogDirsTopic;

/**
 * DescribeLogDirs: klog's one log directory (the data directory), each partition's size on disk, an offset
 * lag of 0 (no replica is behind: there is one), no future replicas; v4 adds the file system's total and
 * usable bytes. A null topic list asks for every partition. From v1, as Kafka 4.1.0 (KIP-896 removed v0, and no
 * client of the course's sends it; the codec still reads it, so a v0 request is answered UNSUPPORTED_VERSION).
 */
export const describeLogDirsApi = defineApi({
  codec: DescribeLogDirs,
  versions: { min: 1, max: 4 },
  handle(ctx: Pick<BrokerContext, 'config' | 'log'>, _header, request) {
    const known = ctx.log.topics();
    const wanted: [string, number[]][] =
      request.topics === null
        ? [...known]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([t, n]) => [t, Array.from({ length: n }, (_, i) => i)])
        : request.topics.map((t) => [t.topic, t.partitions]);
    const topics: Topic[] = [];
    for (const [name, partitions] of wanted) {
      const rows = partitions.flatMap((index) => {
        const p = ctx.log.partition(name, index);
        return p === undefined
          ? []
          : [{ partitionIndex: index, partitionSize: p.sizeBytes, offsetLag: 0, isFutureKey: false }];
      });
      if (rows.length > 0) topics.push({ name, partitions: rows });
    }
    let totalBytes = -1;
    let usableBytes = -1;
    try {
      const fs = statfsSync(ctx.config.dataDir);
      totalBytes = fs.blocks * fs.bsize;
      usableBytes = fs.bavail * fs.bsize;
    } catch {
      // Unknown, as Kafka answers -1 when it cannot tell.
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      results: [{ errorCode: ErrorCode.NONE, logDir: ctx.config.dataDir, topics, totalBytes, usableBytes }],
    };
  },
  summary: (_, response) =>
    `${response.results[0]?.topics.length ?? 0} topic(s) in ${response.results[0]?.logDir}`,
});
