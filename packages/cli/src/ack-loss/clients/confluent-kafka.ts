import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Children } from '../processes.js';
import type { Found, GuardedClient, Produced, ProduceRun, Told } from './client.js';

/** The Python side, shipped with the package (`clients/`): src/ack-loss/clients and dist/ack-loss/clients both sit three levels down. */
const SCRIPT = fileURLToPath(new URL('../../../clients/confluent_kafka_client.py', import.meta.url));

/**
 * Debian's Python first: the one `apt-get install python3-confluent-kafka` gives the module to (a pyenv or
 * venv python3 earlier on PATH usually cannot import it).
 */
const PYTHONS = ['/usr/bin/python3', 'python3'];

let python: string | undefined;

async function json(
  children: Children,
  args: readonly string[],
  hangMs: number,
): Promise<Record<string, unknown>> {
  const r = await children.run(python!, [SCRIPT, ...args], hangMs);
  if (r.code !== 0)
    throw new Error(
      `confluent-kafka (${args[0]}) exited ${r.code}: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`,
    );
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

/**
 * confluent-kafka for Python (librdkafka underneath) through `clients/confluent_kafka_client.py`: a
 * Producer with the same librdkafka settings as kcat, and its delivery reports, each naming its message.
 */
export const confluentKafka: GuardedClient = {
  name: 'confluent-kafka',

  async find(children: Children): Promise<Found> {
    const install = 'apt-get install python3-confluent-kafka';
    if (!existsSync(SCRIPT)) return { found: false, why: `${SCRIPT} is missing`, install };
    const tried: string[] = [];
    for (const candidate of PYTHONS) {
      try {
        const r = await children.run(candidate, [SCRIPT, 'version'], 60_000);
        if (r.code === 0) {
          python = candidate;
          const v = JSON.parse(r.stdout.trim()) as { client: string; librdkafka: string };
          return { found: true, version: `confluent-kafka ${v.client} · librdkafka ${v.librdkafka}` };
        }
        tried.push(`${candidate}: ${r.stderr.trim().split('\n').at(-1)}`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        tried.push(`${candidate}: not found`);
      }
    }
    return { found: false, why: tried.join('; '), install };
  },

  async produce(children: Children, run: ProduceRun): Promise<Produced> {
    const out = await json(
      children,
      [
        'produce',
        `127.0.0.1:${run.port}`,
        run.topic,
        String(run.count),
        run.prefix,
        run.idempotence ? '1' : '0',
        String(run.inFlight),
        String(run.batch),
        String(run.requestTimeoutMs),
      ],
      run.hangMs,
    );
    const reports = out['reports'] as [string, number | string][];
    const told: Told[] = reports.map(([key, r]) =>
      typeof r === 'number' ? { key, offset: r } : { key, error: r },
    );
    return { told, resentByApplication: 0 };
  },

  inFlightNote: () => undefined,

  async guard(children: Children, inFlight: number, hangMs: number) {
    const out = await json(children, ['guard', String(inFlight)], hangMs);
    const error = out['error'] as string | null;
    return {
      command: `confluent_kafka.Producer({'enable.idempotence': True, 'max.in.flight.requests.per.connection': ${inFlight}})`,
      refusal: error ?? undefined,
    };
  },
};
