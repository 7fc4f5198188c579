import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Children } from '../processes.js';
import {
  type Found,
  type GuardedClient,
  keysOf,
  messageValue,
  type Produced,
  type ProduceRun,
  type Told,
} from './client.js';

/** librdkafka's settings for a run, the same for kcat and confluent-kafka (`-X name=value`). */
export function librdkafkaSettings(run: ProduceRun): [string, string][] {
  return [
    ['enable.idempotence', String(run.idempotence)],
    ['acks', 'all'],
    ['max.in.flight.requests.per.connection', String(run.inFlight)],
    ['batch.num.messages', String(run.batch)],
    ['linger.ms', run.batch === 1 ? '0' : '5'],
    ['compression.codec', 'none'],
    // A lost response is given up on after socket.timeout.ms and retried; a message expires only after a
    // minute, far longer than any retry here takes on a loaded machine.
    ['socket.timeout.ms', String(run.requestTimeoutMs)],
    ['message.timeout.ms', '60000'],
    ['retry.backoff.ms', '100'],
  ];
}

const DELIVERED = /^% Message delivered to partition (\d+) \(offset (-?\d+)\)/;
const FAILED = /^% Delivery failed for message: (.*)$/;

/**
 * kcat 1.7 (librdkafka) as a producer: messages `key:value` from a file, one per line. `-E` keeps it going
 * on a non-fatal error: a closed connection is one, and without it kcat stops at "all broker connections
 * are down" instead of letting librdkafka reconnect and retry. At verbosity 3 it prints each delivery report
 * on stderr — the partition and offset the application is told, without the message; librdkafka delivers
 * the reports of a partition in the order the messages were produced.
 */
export const kcat: GuardedClient = {
  name: 'kcat',

  async find(children: Children): Promise<Found> {
    const install = 'apt-get install kcat';
    try {
      const r = await children.run('kcat', ['-V'], 30_000);
      const m = /Version (\S+) .*librdkafka (\S+)/.exec(r.stdout + r.stderr);
      if (r.code !== 0 || m === null) return { found: false, why: `kcat -V exited ${r.code}`, install };
      return { found: true, version: `kcat ${m[1]} · librdkafka ${m[2]}` };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { found: false, why: 'kcat is not on PATH', install };
      throw error;
    }
  },

  async produce(children: Children, run: ProduceRun): Promise<Produced> {
    const file = join(run.scratch, 'kcat-messages.txt');
    writeFileSync(
      file,
      keysOf(run)
        .map((k) => `${k}:${messageValue(k)}\n`)
        .join(''),
    );
    const settings = librdkafkaSettings(run).flatMap(([k, v]) => ['-X', `${k}=${v}`]);
    const args = [
      '-P',
      '-b',
      `127.0.0.1:${run.port}`,
      '-t',
      run.topic,
      '-p',
      '0',
      '-K',
      ':',
      '-E',
      '-v',
      '-v',
      '-v',
      ...settings,
      '-l',
      file,
    ];
    const r = await children.run('kcat', args, run.hangMs);
    const told: Told[] = [];
    for (const line of r.stderr.split('\n')) {
      const ok = DELIVERED.exec(line);
      if (ok !== null) told.push({ key: undefined, offset: Number(ok[2]) });
      const failed = FAILED.exec(line);
      if (failed !== null) told.push({ key: undefined, error: failed[1]! });
    }
    if (r.code !== 0 && told.every((t) => 'offset' in t)) {
      throw new Error(`kcat -P exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' / ')}`);
    }
    return { told, resentByApplication: 0 };
  },

  inFlightNote: () => undefined,

  async guard(children: Children, inFlight: number, hangMs: number) {
    const settings = [
      '-X',
      'enable.idempotence=true',
      '-X',
      `max.in.flight.requests.per.connection=${inFlight}`,
    ];
    // Port 9 on loopback: nothing is ever sent there, librdkafka refuses before it connects.
    const r = await children.run(
      'kcat',
      ['-P', '-b', '127.0.0.1:9', '-t', 'guard', ...settings, '/dev/null'],
      hangMs,
    );
    const refusal = /^% ERROR: (.*)$/m.exec(r.stderr)?.[1];
    return {
      command: `kcat -P ${settings.join(' ')}`,
      refusal: r.code === 0 ? undefined : (refusal ?? r.stderr.trim()),
    };
  },
};
