import { checkModel, clientReactions, type Progress, StateLimitExceeded } from '@klog/model';
import { Command, Option } from 'commander';
import { type CommandContext, onTerminal } from '../command-context.js';
import { Inconclusive, InvariantBroken } from '../errors.js';
import {
  BOUND_FLAGS,
  MAX_STATES_LIMIT,
  parseModelCheckFlags,
  type RawModelCheckFlags,
} from '../model-check/options.js';
import {
  grouped,
  printClientReactions,
  printCounterexample,
  printHolds,
  printModel,
} from '../model-check/report.js';

const HELP_AFTER = `
Checks every schedule within the bounds: a producer (pid 1000, epoch 0) sends
batches 0..1 2..3 4..5 6..6 7..9 then single records, with at most N batches sent
and not yet answered; one connection, in order both ways (TCP); when it breaks,
every request and ack on it is lost and the producer sends every unanswered batch
again, same sequence, oldest first. The broker judges each request with
@klog/core's real judge and ProducerStateEntry. A restart rebuilds the window
from the active segment only, as the chapter's broker does.

Invariants, checked in every state: each batch ends on the log exactly once; no
batch the broker wrote is reported to the producer as failed; the offsets the
producer is told are where the log holds the batch; the log keeps send order.

Schedules that reach the same state are merged (what happens next depends on the
state alone), so each state is checked once and schedules are counted, not listed.
Breadth first, the counterexample printed is a shortest one; it ends with what
KafkaJS, librdkafka and @platformatic/kafka do next with the broker's answer.

Exit codes: 0 every schedule holds, 1 a counterexample (printed), 2 bad usage,
3 gave up at --max-states (nothing proven either way).

Examples:
  klog model-check                                  # 5 in flight: holds
  klog model-check --in-flight 6                    # the shortest way to break it
  klog model-check --in-flight 5 --window 4         # a broker that keeps 4 batches
  klog model-check --in-flight 2 --restarts 1 --segment-batches 1 --losses 0`;

export function modelCheckCommand(ctx: CommandContext): Command {
  const bound = (field: keyof typeof BOUND_FLAGS, what: string) =>
    new Option(`${BOUND_FLAGS[field]} <n>`, what);
  return new Command('model-check')
    .description('check every schedule of sends, lost acks, retries and restarts against the 5-batch window')
    .addOption(
      bound('inFlight', 'batches in flight at most (max.in.flight.requests.per.connection), 1..8').default(
        '5',
      ),
    )
    .addOption(bound('batches', 'batches the producer sends, 1..12').default('8'))
    .addOption(bound('losses', 'times the connection may break, 0..4').default('2'))
    .addOption(bound('restarts', 'times the broker may restart, 0..3').default('1'))
    .addOption(bound('segmentBatches', 'batches per segment before a roll, 1..12; 0: no roll').default('0'))
    .addOption(bound('window', "the broker's window in batches, 1..5 (below 5: a mutation)").default('5'))
    .addOption(
      new Option(
        '--max-states <n>',
        `give up past this many states (exit 3), up to ${grouped(MAX_STATES_LIMIT)}`,
      ).default('3000000'),
    )
    .option('--progress', 'print progress to stderr (also on when stderr is a terminal)', false)
    .addHelpText('after', HELP_AFTER)
    .action((raw: RawModelCheckFlags) => {
      const opts = parseModelCheckFlags(raw);
      const showProgress = opts.progress || onTerminal(2);
      const started = performance.now();
      const onProgress = (p: Progress) =>
        ctx.err(
          `klog: model-check: ${grouped(p.states)} states, ${grouped(p.transitions)} transitions, ${p.depth} steps deep`,
        );
      let result: ReturnType<typeof checkModel>;
      try {
        result = checkModel(opts.bounds, {
          maxStates: opts.maxStates,
          progressEvery: 50_000,
          ...(showProgress ? { onProgress } : {}),
        });
      } catch (error) {
        if (error instanceof StateLimitExceeded) {
          throw new Inconclusive(
            `model-check: gave up after ${grouped(error.limit)} states (at ${error.depth} steps): nothing proven; narrow the bounds or raise --max-states`,
          );
        }
        throw error;
      }
      if (showProgress) {
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        ctx.err(`klog: model-check: ${grouped(result.states)} states in ${seconds} s`);
      }
      printModel(result, ctx.out, ctx.style);
      ctx.out('');
      const { outcome } = result;
      if (outcome.holds) {
        printHolds(result, outcome, ctx.out, ctx.style);
        return;
      }
      printCounterexample(result, outcome.counterexample, ctx.out, ctx.style);
      const reactions = clientReactions(outcome.counterexample, result.plan);
      if (reactions.length > 0) {
        ctx.out('');
        printClientReactions(reactions, result.plan, ctx.out, ctx.style);
      }
      throw new InvariantBroken(
        `model-check: an invariant breaks in ${outcome.counterexample.steps.length} steps (${outcome.counterexample.violation.kind}); the counterexample is above`,
      );
    });
}
