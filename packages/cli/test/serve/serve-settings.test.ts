import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  BROKER_CONFIGS,
  type BrokerConfigDef,
  brokerConfigFlag,
  type ConfigTables,
  resolveConfig,
  TOPIC_CONFIGS,
  type TopicConfigDef,
} from '@klog/broker';
import { Command } from 'commander';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { readServerProperties } from '../../src/serve/server-properties.js';
import { addSettingOptions, givenSettings, settingFlags } from '../../src/serve/settings.js';
import { bin, klog } from '../run-klog.js';

/**
 * `klog serve`'s flags, help and `--config` come from the broker's settings tables (one row per setting,
 * Kafka's ConfigDef shape): a row added is a flag with its help and default, a server.properties key, and a
 * value the broker takes. The broker's half (resolveConfig, DescribeConfigs) is in
 * packages/broker/test/config/config-table.test.ts.
 */

const LONG_TIMEOUT_MS = 300_000;
const scratch = mkdtempSync(join(tmpdir(), 'klog-serve-settings-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const EXTRA_BROKER: BrokerConfigDef = {
  name: 'klog.test.extra.ms',
  key: 'extraMs',
  type: 'LONG',
  validator: { kind: 'range', min: 1, max: 1000 },
  defaultValue: 5,
  doc: 'a setting added for this test',
};
const EXTRA_TOPIC: TopicConfigDef = {
  name: 'extra.topic.ms',
  brokerName: 'log.extra.topic.ms',
  type: 'LONG',
  defaultValue: '11',
  validator: { kind: 'range', min: 0, max: 100 },
  doc: 'a topic config added for this test',
};
const EXTENDED: ConfigTables = {
  broker: [...BROKER_CONFIGS, EXTRA_BROKER],
  topic: [...TOPIC_CONFIGS, EXTRA_TOPIC],
};

/** `klog serve`'s setting flags from `tables`, parsed from `argv`, with `properties` as the --config file. */
function serveWith(tables: ConfigTables, argv: string[], properties?: string) {
  const flags = settingFlags(tables);
  const command = addSettingOptions(new Command('serve').exitOverride(), flags);
  command.parse(argv, { from: 'user' });
  const file =
    properties === undefined ? undefined : readServerProperties(properties, 'test.properties', tables);
  return {
    help: command.helpInformation().replace(/\s+/g, ' '),
    ...givenSettings(command, flags, file, tables),
  };
}

describe('adding a setting is one row', () => {
  it('a broker row is a flag with its help and default, a server.properties key, and a value the broker takes', () => {
    const none = serveWith(EXTENDED, []);
    expect(none.help).toContain(
      '--extra-ms <ms> a setting added for this test (klog.test.extra.ms, 1 to 1000, default 5)',
    );
    expect(none.options).toEqual({});
    const flag = serveWith(EXTENDED, ['--extra-ms', '7'], 'klog.test.extra.ms=8\n');
    expect(flag.options).toEqual({ extraMs: 7 });
    const file = serveWith(EXTENDED, [], 'klog.test.extra.ms = 8\n');
    expect(file.options).toEqual({ extraMs: 8 });
    expect(() => serveWith(EXTENDED, ['--extra-ms', '1001'])).toThrow(
      '--extra-ms "1001": expected a whole number from 1 to 1000',
    );
    expect(() => serveWith(EXTENDED, [], 'klog.test.extra.ms=0\n')).toThrow(
      'test.properties: klog.test.extra.ms "0": expected a whole number from 1 to 1000',
    );
    const config = resolveConfig({ dataDir: '/x', ...file.options } as never, EXTENDED);
    expect((config as unknown as Record<string, unknown>).extraMs).toBe(8);
    expect(config.explicit.has('klog.test.extra.ms')).toBe(true);
    // Without the row: no flag, and the key is one a server.properties has that klog ignores.
    expect(() => serveWith({ broker: BROKER_CONFIGS, topic: TOPIC_CONFIGS }, ['--extra-ms', '7'])).toThrow(
      /unknown option '--extra-ms'/,
    );
    expect(readServerProperties('klog.test.extra.ms=8\n', 'f').ignored).toEqual(['klog.test.extra.ms']);
  });

  it("a topic row is a flag for its broker default, with help, and a server.properties key, both under the broker's name", () => {
    const none = serveWith(EXTENDED, []);
    expect(none.help).toContain(
      '--log-extra-topic-ms <ms> default extra.topic.ms: a topic config added for this test (log.extra.topic.ms, 0 to 100, default 11)',
    );
    expect(serveWith(EXTENDED, ['--log-extra-topic-ms', '9']).logSettings).toEqual({
      'log.extra.topic.ms': '9',
    });
    expect(serveWith(EXTENDED, [], 'log.extra.topic.ms=10\n').logSettings).toEqual({
      'log.extra.topic.ms': '10',
    });
    const config = resolveConfig({ dataDir: '/x', logSettings: { 'log.extra.topic.ms': '10' } }, EXTENDED);
    expect(config.logSettings.get('log.extra.topic.ms')).toBe('10');
  });
});

/**
 * The consumer group protocol's timings bound each other (Kafka's `GroupCoordinatorConfig`: min <= value <= max,
 * heartbeat < session). For an edge of one of them, all six are set around it so the edge alone is tested, or
 * 'impossible' when no values can make it valid (a session of at most 1 ms leaves no shorter heartbeat).
 */
function consumerGroupTimings(key: string, edge: number): Record<string, number> | 'impossible' {
  const INT_MAX = 2 ** 31 - 1;
  const six = (sMin: number, s: number, sMax: number, hMin: number, h: number, hMax: number) => ({
    groupConsumerMinSessionTimeoutMs: sMin,
    groupConsumerSessionTimeoutMs: s,
    groupConsumerMaxSessionTimeoutMs: sMax,
    groupConsumerMinHeartbeatIntervalMs: hMin,
    groupConsumerHeartbeatIntervalMs: h,
    groupConsumerMaxHeartbeatIntervalMs: hMax,
  });
  const e = edge;
  switch (key) {
    case 'groupConsumerSessionTimeoutMs':
      return e <= 1 ? 'impossible' : six(e, e, e, 1, e - 1, e - 1);
    case 'groupConsumerMinSessionTimeoutMs': {
      const s = Math.max(e, 2);
      return six(e, s, s, 1, s - 1, s - 1);
    }
    case 'groupConsumerMaxSessionTimeoutMs':
      return e <= 1 ? 'impossible' : six(1, e, e, 1, e - 1, e - 1);
    case 'groupConsumerHeartbeatIntervalMs':
      return e >= INT_MAX ? 'impossible' : six(1, e + 1, e + 1, e, e, e);
    case 'groupConsumerMinHeartbeatIntervalMs':
      return e >= INT_MAX ? 'impossible' : six(1, e + 1, e + 1, e, e, e);
    case 'groupConsumerMaxHeartbeatIntervalMs':
      return six(1, 2, 2, 1, 1, e);
    default:
      return {};
  }
}

describe("the real tables: the CLI and the broker take the same values, Kafka's bounds", () => {
  it('every flag of a whole-number setting takes its bounds and refuses one past them, as resolveConfig does', () => {
    for (const def of BROKER_CONFIGS) {
      const flag = brokerConfigFlag(def);
      if (flag === null || def.validator.kind !== 'range') continue;
      const { min, max } = def.validator;
      for (const edge of [min, max]) {
        const { options } = serveWith({ broker: BROKER_CONFIGS, topic: TOPIC_CONFIGS }, [flag, String(edge)]);
        expect(options).toEqual({ [def.key]: edge });
        // A max and its min bound each other (max >= min, `atLeastKey`): the other one is given out of the way.
        const rows: readonly BrokerConfigDef[] = BROKER_CONFIGS;
        const maxOf = rows.find((d) => d.atLeastKey === def.key);
        const other =
          'atLeastKey' in def
            ? { [def.atLeastKey]: 1 }
            : maxOf === undefined
              ? {}
              : { [maxOf.key]: 2 ** 31 - 1 };
        const family = consumerGroupTimings(def.key, edge);
        if (family === 'impossible') {
          // Kafka's GroupCoordinatorConfig requires heartbeat < session: no companion values make this edge valid.
          expect(() => resolveConfig({ dataDir: '/x', ...options } as never)).toThrow(
            /group\.consumer\.|groupConsumer/,
          );
          continue;
        }
        expect(() =>
          resolveConfig({ dataDir: '/x', ...other, ...family, ...options } as never),
        ).not.toThrow();
      }
      expect(() =>
        serveWith({ broker: BROKER_CONFIGS, topic: TOPIC_CONFIGS }, [flag, String(max + 1)]),
      ).toThrow(`${flag} "${max + 1}": expected a whole number from ${min} to ${max}`);
    }
  });

  it('--help lists every row with a flag, with its Kafka name and its default', () => {
    const help = klog(['serve', '--help']).stdout.replace(/\s+/g, ' ');
    const flags = settingFlags();
    const at = flags.map((f) => help.indexOf(` ${f.flag} `));
    expect(at.every((i) => i >= 0)).toBe(true);
    // Each flag's help runs from it to the next flag (they are listed in the tables' order).
    flags.forEach((f, i) => {
      const text = help.slice(at[i], i + 1 < flags.length ? at[i + 1] : help.indexOf(' --config '));
      const name = f.kind === 'broker' ? f.def.name : f.def.brokerName;
      if (name !== null) expect(text).toContain(`(${name}, `);
      expect(text).toMatch(/default [^ )]+/);
    });
    // The two with no flag of their own are set by --flush, whose help names them.
    expect(help).toContain('(log.flush.interval.messages and log.flush.interval.ms, default os)');
    expect(BROKER_CONFIGS.filter((d) => brokerConfigFlag(d) === null).map((d) => d.name)).toEqual([
      'log.flush.interval.messages',
      'log.flush.interval.ms',
    ]);
  });
});

function serve(
  args: string[],
): Promise<{ port: number; child: ChildProcess; stop(): Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.once('exit', (code) => reject(new Error(`klog serve exited ${code} before listening: ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
      if (m !== null) {
        resolve({
          port: Number(m[1]),
          child,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
  });
}

describe('klog serve with group settings past the old CLI bound', () => {
  it(
    'group.min.session.timeout.ms above 1800000 (an INT in Kafka) by flag, its max from the file: DescribeConfigs says both',
    async () => {
      const props = join(scratch, 'server.properties');
      writeFileSync(props, 'group.max.session.timeout.ms=2100000\ngroup.max.size=7\n');
      const s = await serve([
        '--data-dir',
        join(scratch, 'data'),
        '--config',
        props,
        '--group-min-session-timeout-ms',
        '2000000',
      ]);
      const admin = new Kafka({
        brokers: [`127.0.0.1:${s.port}`],
        clientId: 'serve-settings',
        logLevel: logLevel.NOTHING,
      }).admin();
      try {
        await admin.connect();
        const described = await admin.describeConfigs({
          resources: [
            {
              type: ConfigResourceTypes.BROKER,
              name: '0',
              configNames: ['group.min.session.timeout.ms', 'group.max.session.timeout.ms', 'group.max.size'],
            },
          ],
          includeSynonyms: false,
        });
        const values = Object.fromEntries(
          described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]),
        );
        expect(values).toEqual({
          'group.min.session.timeout.ms': '2000000',
          'group.max.session.timeout.ms': '2100000',
          'group.max.size': '7',
        });
      } finally {
        await admin.disconnect();
        expect(await s.stop()).toBe(0);
      }
    },
    LONG_TIMEOUT_MS,
  );

  it('a min above the max is refused in one line, exit 2', () => {
    expect(
      klog([
        'serve',
        '--port',
        '0',
        '--data-dir',
        join(scratch, 'x'),
        '--group-min-session-timeout-ms',
        '2000000',
      ]),
    ).toMatchObject({
      status: 2,
      stderr:
        'klog: groupMaxSessionTimeoutMs must be a whole number from 2000000 to 2147483647, got 1800000\n',
    });
  });
});
