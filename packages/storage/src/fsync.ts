import { closeSync, fsyncSync, openSync } from 'node:fs';

/** fsync a directory so that a file created, renamed or removed in it survives a crash. */
export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
