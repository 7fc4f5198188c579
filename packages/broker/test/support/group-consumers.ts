import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { librdkafkaLibDir, SUITES, SuiteError } from '../../../../scripts/librdkafka/suite.mjs';
import { requireTool } from '../../../../scripts/test-machine.mjs';
import { PYTHON } from './clients.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/** `…-consumer`: the same client under Kafka 4's consumer group protocol (KIP-848, `group.protocol=consumer`). */
export type GroupClient =
  | 'kcat'
  | 'kcat-consumer'
  | 'confluent-kafka'
  | 'kafkajs'
  | 'platformatic'
  | 'platformatic-consumer';

/**
 * The `src/` folder of librdkafka 2.15.1 as `pnpm test:librdkafka` builds it (scripts/librdkafka/suite.mjs,
 * cached in ~/.cache/klog, built by `pnpm test`'s first step): Debian's kcat 1.7.1 runs on it with
 * `LD_LIBRARY_PATH`, as Debian's librdkafka 2.0.2 predates the consumer protocol. Undefined when it cannot
 * be built and the user opted out (KLOG_SKIP=librdkafka-2.15); a thrown Error naming what is missing otherwise.
 */
export function librdkafkaForConsumerProtocol(): string | undefined {
  try {
    return librdkafkaLibDir(SUITES.npm);
  } catch (e) {
    if (!(e instanceof SuiteError)) throw e;
    requireTool('librdkafka-2.15', false, e.message);
    return undefined;
  }
}

/** The librdkafka version `kcat -V` says it runs on with `LD_LIBRARY_PATH=libDir`. */
export function kcatLibrdkafkaVersion(libDir: string): string | undefined {
  const r = spawnSync('kcat', ['-V'], { encoding: 'utf8', env: { ...process.env, LD_LIBRARY_PATH: libDir } });
  return /librdkafka (\d+\.\d+\.\d+)/.exec(`${r.stdout}${r.stderr}`)?.[1];
}

/** One record as a group consumer reported it. */
export interface Consumed {
  readonly partition: number;
  readonly offset: number;
  readonly key: string;
  /** Which consumer read it. */
  readonly by: string;
}

/**
 * A consumer of a consumer group in a process of its own, as an application runs one: the partitions
 * it owns now (from its rebalance callbacks) and every record it read.
 */
export class GroupConsumer {
  assigned: number[] = [];
  readonly records: Consumed[] = [];
  readonly lines: string[] = [];
  #exited: Promise<number | null>;
  #waiters = new Set<() => void>();

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    /** How kcat prints its rebalances: the whole assignment (eager), or what is added and revoked
     * (incremental: librdkafka's COOPERATIVE protocol, which the consumer protocol uses). */
    kcat: 'eager' | 'incremental' | false,
  ) {
    this.#exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.once('exit', () => this.#changed());
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      let nl = out.indexOf('\n');
      while (nl >= 0) {
        this.#line(out.slice(0, nl), kcat, 'out');
        out = out.slice(nl + 1);
        nl = out.indexOf('\n');
      }
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      let nl = err.indexOf('\n');
      while (nl >= 0) {
        this.#line(err.slice(0, nl), kcat, 'err');
        err = err.slice(nl + 1);
        nl = err.indexOf('\n');
      }
    });
  }

  /** `libDir`: for 'kcat-consumer', the librdkafka it runs on (`librdkafkaForConsumerProtocol()`). */
  static start(
    client: GroupClient,
    name: string,
    port: number,
    topic: string,
    group: string,
    libDir?: string,
  ): GroupConsumer {
    const bootstrap = `127.0.0.1:${port}`;
    switch (client) {
      case 'kcat':
      case 'kcat-consumer': {
        // Under the consumer protocol the broker sets the session and heartbeat, and assigns: librdkafka
        // refuses session.timeout.ms, heartbeat.interval.ms and partition.assignment.strategy there.
        const groupSettings =
          client === 'kcat'
            ? ['-X', 'session.timeout.ms=4000', '-X', 'heartbeat.interval.ms=500']
            : ['-X', 'group.protocol=consumer'];
        if (client === 'kcat-consumer' && libDir === undefined) throw new Error('kcat-consumer needs libDir');
        return new GroupConsumer(
          name,
          spawn(
            'kcat',
            [
              '-u',
              '-b',
              bootstrap,
              '-E',
              '-G',
              group,
              '-f',
              'R\\t%p\\t%o\\t%k\\n',
              '-X',
              'auto.offset.reset=earliest',
              ...groupSettings,
              '-X',
              'auto.commit.interval.ms=100',
              '-X',
              'socket.timeout.ms=2000',
              '-X',
              'fetch.wait.max.ms=200',
              topic,
            ],
            {
              stdio: ['ignore', 'pipe', 'pipe'],
              env: libDir === undefined ? process.env : { ...process.env, LD_LIBRARY_PATH: libDir },
            },
          ),
          client === 'kcat' ? 'eager' : 'incremental',
        );
      }
      case 'confluent-kafka':
        return new GroupConsumer(
          name,
          spawn(PYTHON, [join(HERE, 'clients.py'), 'group', bootstrap, topic, group], {
            stdio: ['ignore', 'pipe', 'pipe'],
          }),
          false,
        );
      default:
        return new GroupConsumer(
          name,
          spawn(process.execPath, [join(HERE, 'group-consumer.mjs'), client, bootstrap, topic, group], {
            stdio: ['ignore', 'pipe', 'pipe'],
          }),
          false,
        );
    }
  }

  #line(line: string, kcat: 'eager' | 'incremental' | false, stream: 'out' | 'err'): void {
    this.lines.push(`${stream}: ${line}`);
    if (kcat) {
      if (stream === 'out' && line.startsWith('R\t')) {
        const [, p, o, k] = line.split('\t') as [string, string, string, string];
        this.records.push({ partition: Number(p), offset: Number(o), key: k, by: this.name });
      } else if (stream === 'err' && line.includes('rebalanced')) {
        // Eager: "% Group g rebalanced (memberid …): assigned: t [0], t [3]" or "…: revoked: …".
        // Incremental: "% Group g rebalanced: incremental assignment of 2 partition(s) (memberid …,
        // COOPERATIVE rebalance protocol): t [0], t [3]", or "… incremental revoke of …".
        const parts = [...line.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
        if (kcat === 'eager') this.assigned = line.includes('assigned:') ? parts.sort((a, b) => a - b) : [];
        else if (line.includes('incremental assignment of'))
          this.assigned = [...new Set([...this.assigned, ...parts])].sort((a, b) => a - b);
        else if (line.includes('incremental revoke of'))
          this.assigned = this.assigned.filter((p) => !parts.includes(p));
      }
    } else if (stream === 'out' && line.startsWith('{')) {
      const o = JSON.parse(line) as { assigned?: number[]; r?: [number, number, string] };
      if (o.assigned !== undefined) this.assigned = [...o.assigned].sort((a, b) => a - b);
      if (o.r !== undefined)
        this.records.push({ partition: o.r[0], offset: o.r[1], key: o.r[2], by: this.name });
    }
    this.#changed();
  }

  #changed(): void {
    for (const w of [...this.#waiters]) w();
  }

  get exitCode(): number | null {
    return this.child.exitCode;
  }

  /** Resolves once `done()` holds, re-checked at each line the consumer prints; rejects after `ms`. */
  until(done: () => boolean, what: string, ms = 120_000): Promise<void> {
    return waitFor([this], done, what, ms);
  }

  /** SIGTERM: the client closes as an application does (leaving the group), then exits. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    await this.#exited;
  }

  /** kill -9: no goodbye; the broker must notice by the session timeout. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.#exited;
  }

  subscribe(w: () => void): () => void {
    this.#waiters.add(w);
    return () => this.#waiters.delete(w);
  }
}

/** Waits on lines from any of `consumers` (and a periodic re-check, for conditions on the broker) until `done()`. */
export function waitFor(
  consumers: readonly GroupConsumer[],
  done: () => boolean,
  what: string,
  ms = 120_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const unsubscribe: (() => void)[] = [];
    const finish = (error?: Error) => {
      clearTimeout(timer);
      clearInterval(poll);
      for (const u of unsubscribe) u();
      if (error === undefined) resolve();
      else reject(error);
    };
    const check = () => {
      if (done()) finish();
    };
    const timer = setTimeout(() => {
      const tail = consumers.map(
        (c) =>
          `${c.name} (assigned ${JSON.stringify(c.assigned)}, ${c.records.length} records):\n  ${c.lines.slice(-15).join('\n  ')}`,
      );
      finish(new Error(`timed out after ${ms} ms waiting for ${what}\n${tail.join('\n')}`));
    }, ms);
    // Broker-side conditions (committed offsets) change without a client line: look again now and then.
    const poll = setInterval(check, 100);
    for (const c of consumers) unsubscribe.push(c.subscribe(check));
    check();
  });
}
