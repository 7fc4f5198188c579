import type { ProducerStateEntry } from '@klog/core';
import type { Style } from './style.js';

/**
 * Thai combining marks (above/below vowels and tone marks) take no column of
 * their own on a terminal; counting them would push the columns out of line.
 */
const ZERO_WIDTH = /[\u0E31\u0E34-\u0E3A\u0E47-\u0E4E]/gu;

/** Terminal columns a string takes: code points, minus Thai combining marks. */
export function displayWidth(text: string): number {
  return [...text.replace(ZERO_WIDTH, '')].length;
}

export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

export function padStart(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - displayWidth(text))) + text;
}

/** A sequence range as the chapter writes it: `7..9`. */
export function range(first: number, last: number): string {
  return `${first}..${last}`;
}

/** A producer's window, oldest batch first: `[0..1 2..3]`. */
export function formatWindow(entry: ProducerStateEntry | undefined): string {
  return `[${windowRanges(entry).join(' ')}]`;
}

export function windowRanges(entry: ProducerStateEntry | undefined): string[] {
  return (entry?.batches ?? []).map((b) => range(b.firstSeq(), b.lastSeq));
}

/** The verdicts klog prints, by the kind names of @klog/core and @klog/storage. */
export type VerdictKind = 'Append' | 'Duplicate' | 'OutOfOrderSequence' | 'InvalidProducerEpoch';

/** A verdict by the name Kafka's protocol gives it (`OUT_OF_ORDER_SEQUENCE_NUMBER` is error 45). */
export function verdictName(kind: VerdictKind): string {
  switch (kind) {
    case 'Append':
      return 'APPEND';
    case 'Duplicate':
      return 'DUPLICATE';
    case 'OutOfOrderSequence':
      return 'OUT_OF_ORDER_SEQUENCE_NUMBER';
    case 'InvalidProducerEpoch':
      return 'INVALID_PRODUCER_EPOCH';
  }
}

/** Green for written, yellow for a duplicate answered from the window, red for a refusal. */
export function paintVerdict(style: Style, kind: VerdictKind, text = verdictName(kind)): string {
  if (kind === 'Append') return style.green(text);
  if (kind === 'Duplicate') return style.yellow(text);
  return style.red(text);
}
