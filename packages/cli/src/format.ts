import type { ProducerStateEntry } from '@klog/core';

/**
 * Thai combining marks (above/below vowels and tone marks) take no column of
 * their own on a terminal; counting them would push the columns out of line.
 */
const ZERO_WIDTH = /[\u0E31\u0E34-\u0E3A\u0E47-\u0E4E]/gu;

/** Terminal columns a string takes: code points, minus Thai combining marks. */
/** A byte count as help text says it: `1 GiB`, `100 MiB`, `64 KiB`, else the number of bytes. */
export function bytesText(n: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  }
  return `${n} bytes`;
}

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
