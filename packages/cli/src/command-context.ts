import { isatty } from 'node:tty';
import type { Style } from './style.js';

// What every command is handed, apart from program.ts, which imports every command: kept there, each command
// would import the file that imports it.

/** What a command needs from the outside world: where to print, and how. */
export interface CommandContext {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /**
   * A line of a long-running command's log (`klog serve`), written at once rather than in chunks; when
   * the reader of stdout has gone, the line is dropped and the command goes on.
   */
  readonly log: (line: string) => void;
  /**
   * Writes out what `out` has gathered so far. A command that prints as things happen (a console consumer,
   * which may run until Ctrl-C) calls it after each round; others are written out in chunks and at the end.
   */
  readonly flush?: () => void;
  readonly style: Style;
}

/** Whether stdout or stderr is a terminal, asked of the descriptor (not of `process.stdout`: see createOutput). */
export function onTerminal(fd: number): boolean {
  return isatty(fd);
}
