import { basename } from 'node:path';
import type { WindowModule } from '@klog/core';
import { firstLine } from './load-window.js';

/** The learner's code threw: which of their functions, what, and the line of their file it came from. */
export class LearnerThrew extends Error {
  override readonly name = 'LearnerThrew';
  constructor(
    readonly fn: string,
    readonly thrown: unknown,
    readonly where: string | undefined,
  ) {
    super(`${fn} ของคุณโยน ${firstLine(thrown)}${where === undefined ? '' : ` (ที่ ${where})`}`);
  }
}

/** The innermost frame of the stack in the learner's file: `judge, lab.ts:89` (jiti keeps their lines). */
function frameIn(file: string | undefined, error: unknown): string | undefined {
  if (file === undefined || !(error instanceof Error) || typeof error.stack !== 'string') return undefined;
  for (const line of error.stack.split('\n')) {
    const at = line.indexOf(file);
    if (at < 0) continue;
    const fn = /^\s*at (?:Proxy\.|Object\.)?([^\s(]+) \(/.exec(line)?.[1];
    // The starter's `todo` helper is not where the learner has work to do: the frame that called it is.
    if (fn === 'todo') continue;
    const position = /:(\d+):\d+\)?$/.exec(line)?.[1];
    const place = `${basename(file)}${position === undefined ? '' : `:${position}`}`;
    return fn === undefined ? place : `${fn}, ${place}`;
  }
  return undefined;
}

/**
 * Where a watchdog on another thread sees which learner function runs: slot 0 counts the calls
 * begun, slot 1 holds the innermost running function's index in `names` plus one (0: none).
 */
export interface CallCell {
  readonly cell: Int32Array;
  readonly names: string[];
}

export function newCallCell(): CallCell {
  return { cell: new Int32Array(new SharedArrayBuffer(8)), names: [] };
}

/**
 * The learner's module with every function and method wrapped: a throw becomes LearnerThrew naming the
 * innermost of their functions it came from, and each call is announced on `calls`, so a hang (which no
 * code on this thread can interrupt) can be named by the thread that watches.
 */
export function guardWindow(mod: WindowModule, calls: CallCell = newCallCell(), file?: string): WindowModule {
  const stack: number[] = [];
  const wrap = <F extends (...args: never[]) => unknown>(name: string, fn: F): F => {
    calls.names.push(name);
    const id = calls.names.length;
    return function (this: unknown, ...args: Parameters<F>) {
      stack.push(id);
      Atomics.add(calls.cell, 0, 1);
      Atomics.store(calls.cell, 1, id);
      try {
        return fn.apply(this, args);
      } catch (error) {
        throw error instanceof LearnerThrew ? error : new LearnerThrew(name, error, frameIn(file, error));
      } finally {
        stack.pop();
        Atomics.store(calls.cell, 1, stack.at(-1) ?? 0);
      }
    } as F;
  };
  const Entry = mod.ProducerStateEntry;
  const proto = Entry.prototype as Record<string, unknown>;
  for (const [key, desc] of Object.entries(Object.getOwnPropertyDescriptors(proto))) {
    if (key === 'constructor') continue;
    if (typeof desc.value === 'function') {
      Object.defineProperty(proto, key, { ...desc, value: wrap(`ProducerStateEntry.${key}`, desc.value) });
    } else if (desc.get !== undefined) {
      Object.defineProperty(proto, key, { ...desc, get: wrap(`ProducerStateEntry.${key}`, desc.get) });
    }
  }
  const construct = wrap('ProducerStateEntry constructor', (args: unknown[]) =>
    Reflect.construct(Entry, args),
  );
  return {
    incrementSequence: wrap('incrementSequence', mod.incrementSequence),
    ProducerStateEntry: new Proxy(Entry, { construct: (_target, args) => construct(args) as object }),
    judge: wrap('judge', mod.judge),
    appendBatch: wrap('appendBatch', mod.appendBatch),
    addBatchFromHeader: wrap('addBatchFromHeader', mod.addBatchFromHeader),
  };
}
