import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PYTHON } from './clients.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export type GroupClient = 'kcat' | 'confluent-kafka' | 'kafkajs' | 'platformatic';

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
    kcat: boolean,
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

  static start(client: GroupClient, name: string, port: number, topic: string, group: string): GroupConsumer {
    const bootstrap = `127.0.0.1:${port}`;
    switch (client) {
      case 'kcat':
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
              '-X',
              'session.timeout.ms=4000',
              '-X',
              'heartbeat.interval.ms=500',
              '-X',
              'auto.commit.interval.ms=100',
              '-X',
              'socket.timeout.ms=2000',
              '-X',
              'fetch.wait.max.ms=200',
              topic,
            ],
            { stdio: ['ignore', 'pipe', 'pipe'] },
          ),
          true,
        );
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

  #line(line: string, kcat: boolean, stream: 'out' | 'err'): void {
    this.lines.push(`${stream}: ${line}`);
    if (kcat) {
      if (stream === 'out' && line.startsWith('R\t')) {
        const [, p, o, k] = line.split('\t') as [string, string, string, string];
        this.records.push({ partition: Number(p), offset: Number(o), key: k, by: this.name });
      } else if (stream === 'err' && line.includes('rebalanced')) {
        // "% Group g rebalanced (memberid …): assigned: t [0], t [3]" or "…: revoked: …"
        const parts = [...line.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
        this.assigned = line.includes('assigned:') ? parts.sort((a, b) => a - b) : [];
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
