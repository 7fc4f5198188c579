import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import {
  type AckLossOptions,
  CLIENTS,
  parseAckLossOptions,
  type RawAckLossOptions,
} from '../ack-loss/options.js';
import { Children } from '../ack-loss/processes.js';
import { runAckLossDemo } from '../ack-loss/run.js';
import { type CommandContext, onTerminal } from '../command-context.js';

const HELP_AFTER = `
The chapter's lost ack, through the Kafka clients people use, on a real socket.
For each client it finds (kcat and confluent-kafka for Python, both librdkafka;
KafkaJS; @platformatic/kafka) it starts \`klog serve --drop-acks N
--close-after-append M\` on 127.0.0.1 (a port the system picks, a temporary
directory), sends the same messages with idempotence off, then on, stops the
broker, reads the partition back from its segment files and prints: messages
sent, acknowledged to the application, records on the log, duplicates, missing,
and whether every offset the client was told holds its message. Then librdkafka's
own refusal of idempotence with max.in.flight.requests.per.connection=6.

Every number printed is checked while it runs; a wrong one exits with code 1.
The default run (one message per request, one request in flight) is exact: with
idempotence off the duplicates are the records the lost acks left, one per lost
ack; with it on there are none. With --in-flight 2..5 or --batch > 1 it checks
the invariants only: nothing missing, nothing twice with idempotence on, every
record of a lost ack written again with it off.

A client that is not installed is skipped (and named); with the CI environment
variable set, a missing client fails the run instead. The temporary directory and
every process it started are removed on every way out, Ctrl-C included.

Examples (the first prints expected/07-ack-loss.txt):
  klog ack-loss-demo
  klog ack-loss-demo --in-flight 5 --batch 20 --messages 2000 --drop-acks 3 --close-after-append 2
  klog ack-loss-demo --clients kcat,kafkajs`;

/** Exit codes of a run a signal stopped: 128 + the signal's number, as a shell shows them. */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

export function ackLossDemoCommand(ctx: CommandContext): Command {
  return new Command('ack-loss-demo')
    .description(
      'lose acks on purpose in klog serve and count what real Kafka clients wrote, idempotence off and on',
    )
    .addOption(
      new Option(
        '--clients <names>',
        `which clients, comma-separated: ${[...CLIENTS.keys()].join(', ')}`,
      ).default([...CLIENTS.keys()].join(',')),
    )
    .addOption(new Option('--messages <n>', 'messages each client sends per run').default('5'))
    .addOption(new Option('--batch <n>', 'at most this many messages in one request').default('1'))
    .addOption(new Option('--in-flight <n>', 'requests in flight per connection, 1 to 5').default('1'))
    .addOption(
      new Option(
        '--drop-acks <n>',
        'responses the broker drops after the append (klog serve --drop-acks)',
      ).default('1'),
    )
    .addOption(
      new Option('--close-after-append <n>', 'then connections it closes after the append').default('1'),
    )
    .addOption(
      new Option(
        '--request-timeout-ms <ms>',
        'how long a client waits for a response before it retries',
      ).default('1000'),
    )
    .addOption(
      new Option(
        '--window <file>',
        'the brokers judge idempotent batches with your klog lab window (klog serve --window)',
      ),
    )
    .addHelpText('after', HELP_AFTER)
    .action(async (raw: RawAckLossOptions) => {
      const options: AckLossOptions = parseAckLossOptions(raw, process.env);
      const scratch = mkdtempSync(join(tmpdir(), 'klog-ack-loss-'));
      const children = new Children();
      const cleanUp = () => {
        children.killAll();
        rmSync(scratch, { recursive: true, force: true });
      };
      // A signal ends the run at once, with nothing left behind: the brokers and clients it started are killed
      // and the temporary directory removed (the in-process clients go with the process).
      const onSignal = (signal: keyof typeof SIGNAL_EXIT) => {
        cleanUp();
        ctx.err(
          `klog: ack-loss-demo: ${signal}: stopped; the temporary directory and child processes are gone`,
        );
        process.exit(SIGNAL_EXIT[signal]);
      };
      const handlers = (Object.keys(SIGNAL_EXIT) as (keyof typeof SIGNAL_EXIT)[]).map((signal) => {
        const handler = () => onSignal(signal);
        process.on(signal, handler);
        return [signal, handler] as const;
      });
      // Whatever else ends the process (an uncaught error in a client library), the children go with it.
      process.once('exit', cleanUp);
      const onTty = onTerminal(2);
      try {
        await runAckLossDemo(
          {
            out: ctx.out,
            progress: (line) => {
              if (onTty) ctx.err(`klog: ack-loss-demo: ${line}…`);
            },
            style: ctx.style,
            children,
            scratch,
          },
          options,
        );
      } finally {
        cleanUp();
        process.off('exit', cleanUp);
        for (const [signal, handler] of handlers) process.off(signal, handler);
      }
    });
}
