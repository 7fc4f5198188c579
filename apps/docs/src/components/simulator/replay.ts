// The checker's 6-in-flight counterexample, found in the browser by @klog/model with the bounds of
// `klog model-check --in-flight 6` (expected/07-model-6.txt), as frames the page steps through.
import {
  type Answer,
  type BatchStatus,
  CLIENT_NAMES,
  causeWords,
  checkModel,
  clientReactions,
  INVARIANT_WORDS,
  logEndOffset,
  type ModelState,
  rangesWords,
  reactionWords,
  seqRange,
  stepWords,
  VERDICT_NAMES,
  violationWords,
  windowRanges,
} from '@klog/model';

export interface ReplayFrame {
  /** 1-based, as the CLI numbers its steps. */
  readonly step: number;
  readonly actor: string;
  readonly text: string;
  readonly producer: readonly { readonly range: string; readonly status: string }[];
  readonly requests: string;
  readonly acks: string;
  readonly window: string;
  readonly log: string;
  readonly logEndOffset: number;
}

export interface Replay {
  readonly inFlight: number;
  readonly window: number;
  readonly states: number;
  readonly frames: readonly ReplayFrame[];
  readonly broken: string;
  readonly violation: string;
  readonly cause: string | undefined;
  readonly clients: readonly { readonly name: string; readonly lines: readonly string[] }[];
}

function statusWords(status: BatchStatus): string {
  switch (status.kind) {
    case 'unsent':
      return 'ยังไม่ส่ง';
    case 'waiting':
      return 'รอคำตอบ';
    case 'retry':
      return 'ต้องส่งซ้ำ';
    case 'acked':
      return `สำเร็จ · offset ${status.firstOffset}..${status.lastOffset}`;
    case 'failed':
      return `ล้มเหลว · ${VERDICT_NAMES.OutOfOrderSequence}`;
  }
}

const verdictOnly = (answer: Answer) => VERDICT_NAMES[answer.kind];

function frame(
  step: number,
  words: { actor: string; text: string },
  state: ModelState,
  plan: Parameters<typeof rangesWords>[0],
): ReplayFrame {
  const { log } = state.broker;
  return {
    step,
    ...words,
    producer: state.producer.map((s, i) => ({ range: seqRange(plan[i]!), status: statusWords(s) })),
    requests: rangesWords(plan, state.requests) || '—',
    acks:
      state.responses.map((r) => `${seqRange(plan[r.batch]!)} ${verdictOnly(r.answer)}`).join(' · ') || '—',
    window: `[${windowRanges(state.broker.entry).join(' ')}]`,
    log: log.map((b) => `${seqRange(plan[b.batch]!)}→${b.firstOffset}..${b.lastOffset}`).join(' ') || '—',
    logEndOffset: logEndOffset(log),
  };
}

/** Run the checker for `inFlight` and turn its shortest counterexample into frames. */
export function counterexampleReplay(inFlight = 6): Replay {
  const result = checkModel({ inFlight });
  if (result.outcome.holds)
    throw new Error(`model-check: ${inFlight} in flight holds; no counterexample to replay`);
  const cx = result.outcome.counterexample;
  const { plan, bounds } = result;
  return {
    inFlight: bounds.inFlight,
    window: bounds.window,
    states: result.states,
    frames: cx.steps.map(({ step, after }, i) => frame(i + 1, stepWords(step, plan), after, plan)),
    broken: INVARIANT_WORDS[cx.violation.invariant],
    violation: violationWords(cx.violation, plan),
    cause: causeWords(cx, plan, bounds),
    clients: clientReactions(cx, plan).map((r) => ({
      name: CLIENT_NAMES[r.client],
      lines: reactionWords(r, plan),
    })),
  };
}
