import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { klog, root } from '../run-klog.js';
import { kafka, kafkaBin, type Server, startServer } from './tool-runner.js';

/**
 * Kafka's tools as packages/cli/kafka/bin ships them (the scripts, run as a shell runs them), against
 * `klog serve` as a process. Each tool's main forms are compared byte for byte with a golden file in
 * expected/kafka-tools/, blessed on purpose with `KLOG_BLESS=1` (then review the diff), as the broker's
 * ApiVersions table is: these runs need a broker, which scripts/golden.mjs's goldens do not start.
 * Topic ids are random, so `TopicId: <22 characters>` is compared as `TopicId: <id>`.
 */
const LONG_TIMEOUT_MS = 300_000;
const goldenDir = join(root, 'expected/kafka-tools');
const scratch = mkdtempSync(join(tmpdir(), 'klog-kafka-tools-'));
let server: Server;

const servers: Server[] = [];
beforeAll(async () => {
  server = await startServer(join(scratch, 'data'));
  servers.push(server);
});
afterAll(async () => {
  for (const s of servers) {
    s.child.kill('SIGTERM');
    await s.exited;
  }
  rmSync(scratch, { recursive: true, force: true });
});

// Random on every run: a topic's id, and the group a console consumer without --group joins
// (ConsoleConsumerOptions: console-consumer-<0..99999>).
const masked = (text: string) =>
  text
    .replace(/\tTopicId: [A-Za-z0-9_-]{22}\t/g, '\tTopicId: <id>\t')
    .replace(/^console-consumer-\d+$/gm, 'console-consumer-<n>');

/** The session so far, as a golden: each command (the port as <port>) and its stdout. */
class Transcript {
  #text = '';
  constructor(
    readonly file: string,
    readonly port = server.port,
  ) {}
  record(script: string, args: string[], stdout: string, input?: string): void {
    const shown = args
      .map((a) => a.replace(`:${this.port}`, ':<port>').replace(scratch, '<scratch>'))
      .join(' ');
    if (input !== undefined) this.#text += `$ printf '%s' '${input.replaceAll('\n', '\\n')}' |\n`;
    this.#text += `$ bin/${script} ${shown}\n${masked(stdout).replaceAll(`:${this.port}`, ':<port>')}`;
  }
  check(): void {
    const path = join(goldenDir, this.file);
    if (process.env['KLOG_BLESS'] === '1') {
      mkdirSync(goldenDir, { recursive: true });
      writeFileSync(path, this.#text);
    }
    expect(this.#text).toBe(existsSync(path) ? readFileSync(path, 'utf8') : '');
  }
}

describe('packages/cli/kafka/bin', () => {
  it('holds one executable script per tool, each running `klog <tool>`', () => {
    const scripts = readdirSync(kafkaBin).sort();
    expect(scripts).toContain('kafka-topics.sh');
    for (const s of scripts) {
      expect(statSync(join(kafkaBin, s)).mode & 0o111).not.toBe(0);
      expect(readFileSync(join(kafkaBin, s), 'utf8')).toContain(`klog.js" ${s.replace(/\.sh$/, '')} "$@"`);
    }
  });
});

describe('kafka-topics.sh', { timeout: LONG_TIMEOUT_MS }, () => {
  it("Kafka's quickstart lines and TopicCommand's other forms, layouts and exit codes", () => {
    const at = ['--bootstrap-server', `localhost:${server.port}`];
    const t = new Transcript('kafka-topics.txt');
    const ok = (args: string[]) => {
      const run = kafka('kafka-topics.sh', args);
      expect([run.status, run.stderr, run.hung]).toEqual([0, '', false]);
      t.record('kafka-topics.sh', args, run.stdout);
      return run.stdout;
    };
    // TopicCommand.TopicService.createTopic: "Created topic X."; the WARNING line for '.' or '_'.
    ok(['--create', '--topic', 'quickstart-events', ...at]);
    ok([
      '--create',
      '--topic',
      'orders.v1',
      '--partitions',
      '2',
      '--replication-factor',
      '1',
      '--config',
      'cleanup.policy=compact',
      '--config',
      'retention.ms=3600000',
      ...at,
    ]);
    // --if-not-exists: an existing topic is no error, and nothing is printed.
    ok(['--create', '--if-not-exists', '--topic', 'quickstart-events', ...at]);
    // TopicCommand.TopicDescription and PartitionDescription.printDescription: the topic line, then a
    // tab-led line per partition; Configs lists what is not a default.
    ok(['--describe', '--topic', 'quickstart-events', ...at]);
    ok(['--alter', '--topic', 'quickstart-events', '--partitions', '3', ...at]);
    ok(['--describe', '--topic', 'quick.*', ...at]);
    ok(['--describe', '--topics-with-overrides', '--exclude-internal', ...at]);
    // listTopics: the names, sorted, one a line.
    ok(['--list', '--exclude-internal', ...at]);
    ok(['--delete', '--topic', 'orders.v1', ...at]);
    ok(['--delete', '--if-exists', '--topic', 'orders.v1', ...at]);
    ok(['--list', '--exclude-internal', ...at]);
    t.check();

    // TopicCommand.mainNoExit: a bad command line or a missing topic is one line on stderr, exit 1; a
    // broker's refusal is "Error while executing topic command : …" on stdout, exit 1.
    expect(kafka('kafka-topics.sh', ['--create', '--topic', 'quickstart-events', ...at])).toMatchObject({
      status: 1,
      stdout: "Error while executing topic command : Topic 'quickstart-events' already exists.\n",
      stderr: '',
    });
    expect(kafka('kafka-topics.sh', ['--describe', '--topic', 'missing', ...at])).toMatchObject({
      status: 1,
      stdout: '',
      stderr: "Topic 'missing' does not exist as expected\n",
    });
    expect(kafka('kafka-topics.sh', ['--delete', '--topic', 'missing', ...at])).toMatchObject({
      status: 1,
      stderr: "Topic 'missing' does not exist as expected\n",
    });
    expect(kafka('kafka-topics.sh', ['--list', '--create', ...at])).toMatchObject({
      status: 1,
      stderr: 'Command must include exactly one action: --list, --describe, --create, --alter or --delete\n',
    });
    expect(kafka('kafka-topics.sh', ['--list'])).toMatchObject({
      status: 1,
      stderr: '--bootstrap-server must be specified\n',
    });
    expect(kafka('kafka-topics.sh', ['--list', '--bogus', ...at])).toMatchObject({
      status: 1,
      stderr: 'bogus is not a recognized option\n',
    });
    expect(
      kafka('kafka-topics.sh', ['--alter', '--topic', 'quickstart-events', '--config', 'a=b', ...at]),
    ).toMatchObject({
      status: 1,
      stderr:
        'Option "[alter]" can\'t be used with option "[config]" (To alter topic configurations, the kafka-configs tool can be used.)\n',
    });
    expect(kafka('kafka-topics.sh', ['--create', '--topic', 'x', '--partitions', '0', ...at])).toMatchObject({
      status: 1,
      stderr: 'The partitions must be greater than 0\n',
    });
    // An option klog cannot honour: one line, exit 1, never ignored.
    expect(kafka('kafka-topics.sh', ['--list', '--command-config', 'admin.properties', ...at])).toMatchObject(
      {
        status: 1,
        stdout: '',
        stderr:
          "klog's kafka-topics.sh does not support --command-config: klog speaks PLAINTEXT only, so there are no admin client settings to pass\n",
      },
    );
    // Abbreviated options, as jopt-simple takes them.
    expect(
      kafka('kafka-topics.sh', ['--list', '--exclude', '--bootstrap', `localhost:${server.port}`]),
    ).toMatchObject({
      status: 0,
      stdout: 'quickstart-events\n',
    });
  });
});

describe("Kafka 4.1's quickstart, verbatim but for bin/'s path", { timeout: LONG_TIMEOUT_MS }, () => {
  it('create, describe, produce with keys, consume from the beginning, a group, describe it, reset it, read again', async () => {
    const own = await startServer(join(scratch, 'quickstart'));
    servers.push(own);
    const at = ['--bootstrap-server', `localhost:${own.port}`];
    const t = new Transcript('quickstart.txt', own.port);
    const run = (script: string, args: string[], input?: string) => {
      const r = kafka(script, args, input);
      expect([r.status, r.hung]).toEqual([0, false]);
      t.record(script, args, r.stdout, input);
      return r;
    };
    run('kafka-topics.sh', ['--create', '--topic', 'quickstart-events', ...at]);
    run('kafka-topics.sh', ['--describe', '--topic', 'quickstart-events', ...at]);
    // ConsoleProducer with LineMessageReader's parse.key: a line per record, the key before the separator.
    const events =
      'first:This is my first event\nsecond:This is my second event\nthird:This is my third event\n';
    const produced = run(
      'kafka-console-producer.sh',
      [
        '--topic',
        'quickstart-events',
        '--property',
        'parse.key=true',
        '--property',
        'key.separator=:',
        ...at,
      ],
      events,
    );
    expect(produced.stderr).toBe('');
    // ConsoleConsumer: DefaultMessageFormatter's lines on stdout, "Processed a total of N messages" on stderr.
    const all = run('kafka-console-consumer.sh', [
      '--topic',
      'quickstart-events',
      '--from-beginning',
      '--max-messages',
      '3',
      ...at,
    ]);
    expect(all.stdout).toBe('This is my first event\nThis is my second event\nThis is my third event\n');
    expect(all.stderr).toBe('Processed a total of 3 messages\n');
    run('kafka-console-consumer.sh', [
      '--topic',
      'quickstart-events',
      '--from-beginning',
      '--group',
      'quickstart-group',
      '--max-messages',
      '3',
      '--property',
      'print.key=true',
      '--property',
      'print.offset=true',
      ...at,
    ]);
    // ConsumerGroupCommand --describe: the group read everything (lag 0) and has no member left.
    const described = run('kafka-consumer-groups.sh', ['--describe', '--group', 'quickstart-group', ...at]);
    expect(described.stderr).toBe("\nConsumer group 'quickstart-group' has no active members.\n");
    run('kafka-consumer-groups.sh', [
      '--reset-offsets',
      '--to-earliest',
      '--group',
      'quickstart-group',
      '--topic',
      'quickstart-events',
      '--execute',
      ...at,
    ]);
    run('kafka-consumer-groups.sh', ['--describe', '--group', 'quickstart-group', ...at]);
    // The same group reads everything again from the offsets the reset committed.
    const again = run('kafka-console-consumer.sh', [
      '--topic',
      'quickstart-events',
      '--group',
      'quickstart-group',
      '--max-messages',
      '3',
      ...at,
    ]);
    expect(again.stdout).toBe(all.stdout);
    run('kafka-consumer-groups.sh', ['--list', ...at]);
    t.check();
  });
});

describe('kafka-console-consumer.sh and kafka-consumer-groups.sh', { timeout: LONG_TIMEOUT_MS }, () => {
  it("DefaultMessageFormatter's properties, ConsumerGroupCommand's forms, layouts and exit codes", () => {
    const at = ['--bootstrap-server', `localhost:${server.port}`];
    const t = new Transcript('consumer-groups.txt');
    const ok = (script: string, args: string[], input?: string) => {
      const run = kafka(script, args, input);
      expect([run.status, run.hung]).toEqual([0, false]);
      t.record(script, args, run.stdout, input);
      return run;
    };
    ok('kafka-topics.sh', ['--create', '--topic', 'orders', '--partitions', '2', ...at]);
    // Keyed records land where Kafka's default partitioner (murmur2) puts them: a, b, c in 0, d in 1.
    ok(
      'kafka-console-producer.sh',
      ['--topic', 'orders', '--property', 'parse.key=true', ...at],
      'a\tone\nb\ttwo\nc\tthree\nd\tfour\n',
    );
    ok('kafka-console-consumer.sh', [
      '--topic',
      'orders',
      '--partition',
      '1',
      '--offset',
      'earliest',
      '--max-messages',
      '1',
      '--property',
      'print.partition=true',
      '--property',
      'print.key=true',
      '--property',
      'print.headers=true',
      '--property',
      'key.separator= | ',
      ...at,
    ]);
    const grouped = ok('kafka-console-consumer.sh', [
      '--topic',
      'orders',
      '--from-beginning',
      '--group',
      'billing',
      '--max-messages',
      '4',
      '--property',
      'print.value=false',
      '--property',
      'print.key=true',
      '--property',
      'print.offset=true',
      ...at,
    ]);
    expect(grouped.stderr).toBe('Processed a total of 4 messages\n');
    ok('kafka-consumer-groups.sh', ['--list', '--state', ...at]);
    ok('kafka-consumer-groups.sh', ['--describe', '--group', 'billing', ...at]);
    ok('kafka-consumer-groups.sh', ['--describe', '--group', 'billing', '--members', '--verbose', ...at]);
    ok('kafka-consumer-groups.sh', ['--describe', '--group', 'billing', '--state', ...at]);
    ok('kafka-consumer-groups.sh', [
      '--reset-offsets',
      '--group',
      'billing',
      '--topic',
      'orders:0',
      '--to-offset',
      '1',
      ...at,
    ]);
    ok('kafka-consumer-groups.sh', [
      '--reset-offsets',
      '--group',
      'billing',
      '--all-topics',
      '--shift-by',
      '-1',
      '--execute',
      ...at,
    ]);
    ok('kafka-consumer-groups.sh', [
      '--reset-offsets',
      '--group',
      'billing',
      '--topic',
      'orders',
      '--to-latest',
      '--dry-run',
      ...at,
    ]);
    ok('kafka-consumer-groups.sh', ['--describe', '--group', 'billing', '--offsets', ...at]);
    ok('kafka-consumer-groups.sh', ['--delete', '--group', 'billing', ...at]);
    // printError: on stdout after an empty line; ConsumerGroupService goes on and the tool exits 0.
    ok('kafka-consumer-groups.sh', ['--describe', '--group', 'billing', ...at]);
    t.check();

    expect(kafka('kafka-consumer-groups.sh', ['--describe', ...at])).toMatchObject({
      status: 1,
      stderr: 'Option [describe] takes one of these options: [all-groups], [group]\n',
    });
    expect(
      kafka('kafka-consumer-groups.sh', ['--reset-offsets', '--group', 'g', '--all-topics', ...at]),
    ).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(/^Option \[reset-offsets\] takes exactly one of these options: /),
    });
    expect(
      kafka('kafka-console-consumer.sh', ['--topic', 'orders', '--group', 'g', '--partition', '0', ...at]),
    ).toMatchObject({
      status: 1,
      stderr: 'Options group and partition cannot be specified together.\n',
    });
    expect(
      kafka('kafka-console-producer.sh', ['--topic', 'orders', '--compression-codec', 'gzip', ...at]),
    ).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(
        /^klog's kafka-console-producer\.sh does not support --compression-codec: /,
      ),
    });
    // LineMessageReader's KafkaException for a line without the key separator ends the producer.
    expect(
      kafka(
        'kafka-console-producer.sh',
        ['--topic', 'orders', '--property', 'parse.key=true', ...at],
        'no separator\n',
      ),
    ).toMatchObject({
      status: 1,
      stderr:
        "org.apache.kafka.common.KafkaException: No key separator found on line number 1: 'no separator'\n",
    });
  });
});

describe('kafka-consumer-groups.sh: --delete-offsets, --to-datetime, --by-duration, --from-file, --export', {
  timeout: LONG_TIMEOUT_MS,
}, () => {
  it("GroupOffsetsResetter's scenarios and ConsumerGroupService.deleteOffsets, as Kafka prints them", () => {
    const at = ['--bootstrap-server', `localhost:${server.port}`];
    const t = new Transcript('consumer-groups-more.txt');
    const ok = (args: string[]) => {
      const run = kafka('kafka-consumer-groups.sh', args);
      expect([run.status, run.hung]).toEqual([0, false]);
      t.record('kafka-consumer-groups.sh', args, run.stdout);
      return run;
    };
    const reset = ['--reset-offsets', '--group', 'payments'];
    expect(
      kafka('kafka-topics.sh', ['--create', '--topic', 'invoices', '--partitions', '2', ...at]).status,
    ).toBe(0);
    expect(kafka('kafka-topics.sh', ['--create', '--topic', 'refunds', ...at]).status).toBe(0);
    for (const topic of ['invoices', 'refunds'])
      expect(
        kafka('kafka-console-producer.sh', ['--topic', topic, ...at], 'one\ntwo\nthree\nfour\n').status,
      ).toBe(0);
    for (const topic of ['invoices', 'refunds'])
      expect(
        kafka('kafka-console-consumer.sh', [
          '--topic',
          topic,
          '--from-beginning',
          '--group',
          'payments',
          '--max-messages',
          '4',
          ...at,
        ]).status,
      ).toBe(0);
    // Long before the records: the first offset; after them all: the log end, with Kafka's warning.
    ok([...reset, '--topic', 'invoices', '--to-datetime', '2001-02-03T04:05:06.789', '--dry-run', ...at]);
    ok([
      ...reset,
      '--topic',
      'invoices:1',
      '--to-datetime',
      '2199-12-31T23:59:59.000+07:00',
      '--dry-run',
      ...at,
    ]);
    ok([...reset, '--all-topics', '--by-duration', 'P3650DT1H', '--export', '--dry-run', ...at]);
    const plan = join(scratch, 'plan.csv');
    writeFileSync(plan, 'invoices,0,1\ninvoices,1,99\nrefunds,0,2\n');
    ok([...reset, '--from-file', plan, '--execute', ...at]);
    ok(['--describe', '--group', 'payments', ...at]);
    writeFileSync(plan, 'payments,refunds,0,3\nelsewhere,refunds,0,1\n');
    ok([
      '--reset-offsets',
      '--group',
      'payments',
      '--group',
      'nobody',
      '--from-file',
      plan,
      '--dry-run',
      ...at,
    ]);
    ok(['--delete-offsets', '--group', 'payments', '--topic', 'invoices:0', '--topic', 'refunds', ...at]);
    ok(['--delete-offsets', '--group', 'payments', '--topic', 'no-such-topic', '--topic', 'invoices', ...at]);
    ok(['--describe', '--group', 'payments', ...at]);
    ok(['--delete-offsets', '--group', 'nobody', '--topic', 'invoices', ...at]);
    t.check();

    // Bad values: printError's line (Kafka's RuntimeException around the parser's exception).
    const bad = (args: string[]) =>
      kafka('kafka-consumer-groups.sh', [...reset, '--all-topics', ...args, ...at]);
    expect(bad(['--to-datetime', '2024-01-01 00:00:00.000', '--dry-run'])).toMatchObject({
      status: 1,
      stdout:
        "\nError: Executing consumer group command failed due to java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format\n",
    });
    expect(bad(['--to-datetime', '2024-02-30T00:00:00.000', '--dry-run'])).toMatchObject({
      status: 1,
      stdout:
        '\nError: Executing consumer group command failed due to java.text.ParseException: Unparseable date: "2024-02-30T00:00:00.000Z"\n',
    });
    expect(bad(['--by-duration', '3 days', '--dry-run'])).toMatchObject({
      status: 1,
      stdout: '\nError: Executing consumer group command failed due to Text cannot be parsed to a Duration\n',
    });
    expect(bad(['--from-file', join(scratch, 'absent.csv'), '--dry-run'])).toMatchObject({
      status: 1,
      stdout: `\nError: Executing consumer group command failed due to java.nio.file.NoSuchFileException: ${join(scratch, 'absent.csv')}\n`,
    });
    expect(
      kafka('kafka-consumer-groups.sh', ['--delete-offsets', '--group', 'payments', ...at]),
    ).toMatchObject({
      status: 1,
      stderr: 'Option [delete-offsets] takes the following options: [group], [topic]\n',
    });
    expect(kafka('kafka-consumer-groups.sh', ['--list', '--export', ...at])).toMatchObject({
      status: 1,
      stderr: 'Option "[export]" can\'t be used with option "[list]"\n',
    });
  });
});

describe('kafka-dump-log.sh', { timeout: LONG_TIMEOUT_MS }, () => {
  it("is DumpLogSegments' flags in front of klog dump-log's own dump, and refuses what it cannot honour", () => {
    const at = ['--bootstrap-server', `localhost:${server.port}`];
    expect(kafka('kafka-topics.sh', ['--create', '--topic', 'dumped', ...at]).status).toBe(0);
    expect(kafka('kafka-console-producer.sh', ['--topic', 'dumped', ...at], 'alpha\nbeta\n').status).toBe(0);
    const segment = join(scratch, 'data', 'dumped-0', '00000000000000000000.log');
    for (const [flags, same] of [
      [['--print-data-log'], ['--records']],
      [['--deep-iteration'], ['--deep-iteration']],
      [[], []],
    ] as const) {
      const tool = kafka('kafka-dump-log.sh', ['--files', `${segment},`, ...flags]);
      const own = klog(['dump-log', segment, ...same]);
      expect([tool.status, tool.hung]).toEqual([0, false]);
      expect(tool.stdout).toContain('Dumping');
      expect(tool.stdout).toBe(own.stdout);
    }
    expect(kafka('kafka-dump-log.sh', ['--files', segment, '--print-data-log']).stdout).toMatch(
      /payload: beta/,
    );
    expect(kafka('kafka-dump-log.sh', ['--print-data-log'])).toMatchObject({
      status: 1,
      stdout: '',
      stderr: 'Missing required argument "[files]"\n',
    });
    expect(kafka('kafka-dump-log.sh', ['--files', segment, '--transaction-log-decoder'])).toMatchObject({
      status: 1,
      stderr:
        "klog's kafka-dump-log.sh does not support --transaction-log-decoder: klog has no transactions\n",
    });
    expect(kafka('kafka-dump-log.sh', ['--files', segment, '--max-bytes', '100'])).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(/^klog's kafka-dump-log\.sh does not support --max-bytes: /),
    });
  });
});

describe("Kafka's admin tools against a broker of their own", { timeout: LONG_TIMEOUT_MS }, () => {
  let admin: Server;
  let at: string[];
  beforeAll(async () => {
    admin = await startServer(join(scratch, 'admin'));
    servers.push(admin);
    at = ['--bootstrap-server', `localhost:${admin.port}`];
  });
  const fails = (script: string, args: string[], stderr: string | RegExp, stdout = '') =>
    expect(kafka(script, [...args, ...at])).toMatchObject({
      status: 1,
      stdout,
      stderr: typeof stderr === 'string' ? stderr : expect.stringMatching(stderr),
      hung: false,
    });
  /** A keyed line through the console producer: one batch of one record, so its size on disk is fixed. */
  const produce = (topic: string, lines: string) => {
    const run = kafka(
      'kafka-console-producer.sh',
      ['--topic', topic, '--property', 'parse.key=true', '--property', 'key.separator=:', ...at],
      lines,
    );
    expect([run.status, run.stderr]).toEqual([0, '']);
  };

  it("kafka-configs.sh: ConfigCommand's describe and alter of topics and brokers, its checks and exit codes", () => {
    const t = new Transcript('kafka-configs.txt', admin.port);
    const ok = (args: string[]) => {
      const run = kafka('kafka-configs.sh', [...args, ...at]);
      expect([run.status, run.stderr, run.hung]).toEqual([0, '', false]);
      t.record('kafka-configs.sh', [...args, ...at], run.stdout);
    };
    expect(kafka('kafka-topics.sh', ['--create', '--topic', 'configured', ...at]).status).toBe(0);
    expect(kafka('kafka-topics.sh', ['--create', '--topic', 'plain', ...at]).status).toBe(0);
    // ConfigCommand.describeResourceConfig: "Dynamic configs for topic X are:", then each dynamic entry
    // sorted by name, `name=value sensitive=… synonyms={SOURCE:name=value, …}`.
    ok(['--describe', '--entity-type', 'topics', '--entity-name', 'configured']);
    // alterConfig: commas inside [] stay in the value; "Completed updating config for topic X."
    ok([
      '--alter',
      '--entity-type',
      'topics',
      '--entity-name',
      'configured',
      '--add-config',
      'retention.ms=3600000,cleanup.policy=[compact,delete]',
    ]);
    ok(['--describe', '--topic', 'configured']);
    ok(['--alter', '--topic', 'configured', '--delete-config', 'retention.ms']);
    // Every topic (no name): Admin.listTopics' HashSet order, each with its header.
    ok(['--describe', '--entity-type', 'topics']);
    // Brokers: each broker's dynamic configs, then the cluster-wide defaults.
    ok(['--describe', '--entity-type', 'brokers']);
    ok(['--describe', '--entity-type', 'brokers', '--entity-default']);
    t.check();

    const file = join(scratch, 'add.properties');
    writeFileSync(file, '# from a file\nsegment.ms=86400000\n');
    const fromFile = kafka('kafka-configs.sh', [
      '--alter',
      '--topic',
      'plain',
      '--add-config-file',
      file,
      ...at,
    ]);
    expect(fromFile).toMatchObject({ status: 0, stdout: 'Completed updating config for topic plain.\n' });
    expect(kafka('kafka-configs.sh', ['--describe', '--topic', 'plain', '--all', ...at]).stdout).toMatch(
      /^All configs for topic plain are:\n(.*\n)* {2}segment\.ms=86400000 sensitive=false synonyms=\{DYNAMIC_TOPIC_CONFIG:segment\.ms=86400000, /,
    );

    // IllegalArgumentException and InvalidConfigurationException: the message alone on stderr, exit 1.
    fails(
      'kafka-configs.sh',
      ['--topic', 'plain'],
      'Command must include exactly one action: --describe, --alter\n',
    );
    fails('kafka-configs.sh', ['--describe'], 'At least one entity type must be specified\n');
    fails('kafka-configs.sh', ['--describe', '--bogus'], 'bogus is not a recognized option\n');
    fails(
      'kafka-configs.sh',
      ['--describe', '--entity-type', 'widgets'],
      'Invalid entity type widgets, the entity type must be one of topics, clients, users, brokers, ips, broker-loggers, client-metrics, groups with a --bootstrap-server or --bootstrap-controller argument\n',
    );
    fails(
      'kafka-configs.sh',
      ['--alter', '--topic', 'plain'],
      'At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter\n',
    );
    fails(
      'kafka-configs.sh',
      ['--alter', '--topic', 'plain', '--delete-config', 'retention.ms'],
      'Invalid config(s): retention.ms\n',
    );
    fails(
      'kafka-configs.sh',
      ['--alter', '--topic', 'plain', '--add-config', 'retention.ms'],
      /^Invalid entity config: all configs to be added must be in the format "key=val"/,
    );
    fails(
      'kafka-configs.sh',
      ['--describe', '--entity-type', 'users'],
      /^klog's kafka-configs\.sh does not support --entity-type users: .*\n$/,
    );
    // Anything else the Admin client raises: the command line, then the ExecutionException, exit 1 (the
    // header line was printed before the broker was asked).
    fails(
      'kafka-configs.sh',
      ['--describe', '--topic', 'missing'],
      `Error while executing config command with args '--describe --topic missing --bootstrap-server localhost:${admin.port}'\njava.util.concurrent.ExecutionException: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic 'missing' does not exist.\n`,
      'Dynamic configs for topic missing are:\n',
    );
    fails(
      'kafka-configs.sh',
      ['--alter', '--topic', 'plain', '--add-config', 'no.such.config=1'],
      /\njava\.util\.concurrent\.ExecutionException: org\.apache\.kafka\.common\.errors\.InvalidConfigurationException: .*no\.such\.config/,
    );
  });

  it('kafka-get-offsets.sh and kafka-delete-records.sh: GetOffsetShell and DeleteRecordsCommand', () => {
    const t = new Transcript('kafka-get-offsets.txt', admin.port);
    const ok = (script: string, args: string[]) => {
      const run = kafka(script, [...args, ...at]);
      expect([run.status, run.stderr, run.hung]).toEqual([0, '', false]);
      t.record(script, [...args, ...at], run.stdout);
    };
    expect(
      kafka('kafka-topics.sh', ['--create', '--topic', 'offsets', '--partitions', '3', ...at]).status,
    ).toBe(0);
    produce('offsets', 'a:1\nb:2\nc:3\nd:4\ne:5\nf:6\ng:7\n');
    // `topic:partition:offset`, ordered by `topic-partition` as a string; latest by default.
    ok('kafka-get-offsets.sh', ['--topic', 'offsets']);
    ok('kafka-get-offsets.sh', ['--topic', 'offsets', '--time', 'earliest']);
    ok('kafka-get-offsets.sh', ['--topic', 'offsets', '--time', '-2', '--partitions', '0,2']);
    ok('kafka-get-offsets.sh', ['--topic-partitions', 'off.*:1-']);
    // A timestamp before every record: the first offset; one after them all: no offset, so no line.
    ok('kafka-get-offsets.sh', ['--topic', 'offsets', '--time', '0']);
    ok('kafka-get-offsets.sh', ['--topic', 'offsets', '--time', '99999999999999']);
    // DeleteRecordsCommand: the low watermarks in the order of Kafka's HashMap of TopicPartitions.
    const json = join(scratch, 'delete.json');
    writeFileSync(
      json,
      JSON.stringify({
        partitions: [
          { topic: 'offsets', partition: 0, offset: 1 },
          { topic: 'offsets', partition: 1, offset: 0 },
          { topic: 'missing', partition: 0, offset: 1 },
        ],
        version: 1,
      }),
    );
    ok('kafka-delete-records.sh', ['--offset-json-file', json]);
    ok('kafka-get-offsets.sh', ['--topic', 'offsets', '--time', 'earliest']);
    t.check();

    // GetOffsetShell.mainNoExit: "Error occurred: …" on stderr, exit 1.
    fails(
      'kafka-get-offsets.sh',
      ['--topic', 'missing'],
      'Error occurred: Could not match any topic-partitions with the specified filters\n',
    );
    fails(
      'kafka-get-offsets.sh',
      ['--topic', 'offsets', '--time', 'yesterday'],
      'Error occurred: Malformed time argument yesterday. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered, or a specified long format timestamp\n',
    );
    fails(
      'kafka-get-offsets.sh',
      ['--topic-partitions', 'offsets:0', '--topic', 'offsets'],
      'Error occurred: --topic-partitions cannot be used with --topic or --partitions\n',
    );
    fails('kafka-get-offsets.sh', ['--bogus'], 'Error occurred: bogus is not a recognized option\n');
    expect(kafka('kafka-get-offsets.sh', ['--topic', 'offsets'])).toMatchObject({
      status: 1,
      stderr: 'Missing required argument "[bootstrap-server]"\n',
    });
    // DeleteRecordsCommand's main catches nothing: the JVM's `Exception in thread "main"` line, exit 1.
    fails(
      'kafka-delete-records.sh',
      ['--offset-json-file', join(scratch, 'none.json')],
      `Exception in thread "main" java.nio.file.NoSuchFileException: ${join(scratch, 'none.json')}\n`,
    );
    const twice = join(scratch, 'twice.json');
    writeFileSync(
      twice,
      '{"partitions":[{"topic":"offsets","partition":2,"offset":1},{"topic":"offsets","partition":2,"offset":2}]}',
    );
    fails(
      'kafka-delete-records.sh',
      ['--offset-json-file', twice],
      'Exception in thread "main" org.apache.kafka.server.common.AdminCommandFailedException: Offset json file contains duplicate topic partitions: offsets-2\n',
    );
    expect(kafka('kafka-delete-records.sh', at)).toMatchObject({
      status: 1,
      stderr: 'Missing required argument "[offset-json-file]"\n',
    });
  });

  it('kafka-log-dirs.sh and kafka-acls.sh: LogDirsCommand and AclCommand against a broker without an authorizer', () => {
    const t = new Transcript('kafka-log-dirs.txt', admin.port);
    expect(kafka('kafka-topics.sh', ['--create', '--topic', 'dirs', '--partitions', '2', ...at]).status).toBe(
      0,
    );
    produce('dirs', 'k:first\n');
    produce('dirs', 'other:second\n');
    const dataDir = join(scratch, 'admin');
    for (const args of [
      ['--describe', '--topic-list', 'dirs'],
      ['--describe', '--topic-list', 'dirs', '--broker-list', '0'],
    ]) {
      const run = kafka('kafka-log-dirs.sh', [...args, ...at]);
      expect([run.status, run.stderr]).toEqual([0, '']);
      // LogDirsCommand: two lines, then Jackson's JSON of HashMaps (hence "brokers" before "version").
      t.record('kafka-log-dirs.sh', [...args, ...at], run.stdout.replaceAll(dataDir, '<data-dir>'));
    }
    t.check();
    fails(
      'kafka-log-dirs.sh',
      ['--describe', '--broker-list', '0,5'],
      'ERROR: The given brokers do not exist from --broker-list: 5. Current existent brokers: 0\n',
    );
    fails('kafka-log-dirs.sh', ['--topic-list', 'dirs'], 'Missing required argument "[describe]"\n');

    // AclCommand.main: the Admin client's SecurityDisabledException, on stdout, exit 1.
    const noAuthorizer =
      'Error while executing ACL command: org.apache.kafka.common.errors.SecurityDisabledException: No Authorizer is configured.\n';
    fails('kafka-acls.sh', ['--list'], '', noAuthorizer);
    fails('kafka-acls.sh', ['--list', '--topic', 'dirs'], '', noAuthorizer);
    fails(
      'kafka-acls.sh',
      ['--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'dirs'],
      '',
      noAuthorizer,
    );
    fails('kafka-acls.sh', ['--remove', '--force', '--topic', 'dirs'], '', noAuthorizer);
    // checkArgs and addAcls' checks, before the broker is asked.
    fails(
      'kafka-acls.sh',
      ['--topic', 'dirs'],
      'Command must include exactly one action: --list, --add, --remove. \n',
    );
    fails(
      'kafka-acls.sh',
      ['--add', '--topic', 'dirs'],
      'You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.\n',
    );
    expect(kafka('kafka-acls.sh', ['--list'])).toMatchObject({
      status: 1,
      stderr: 'One of --bootstrap-server or --bootstrap-controller must be specified\n',
    });
  });
});
