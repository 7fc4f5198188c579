import { closeSync, fsyncSync, openSync } from 'node:fs';
import { io } from './io.js';

/** fsync a directory so that a file created, renamed or removed in it survives a crash. */
export function fsyncDirectory(dir: string): void {
  const fd = io('open directory to fsync', dir, () => openSync(dir, 'r'));
  try {
    io('fsync directory', dir, () => fsyncSync(fd));
  } finally {
    closeSync(fd);
  }
}
