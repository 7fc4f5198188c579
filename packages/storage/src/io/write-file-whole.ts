import { closeSync, fsyncSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { temporaryPathOf } from '../segment/segment-name.js';
import { CREATE_NEW, ioError, openRegular } from './io.js';

/**
 * Write `bytes` as the file `path`, so that a crash leaves the old file or the new one,
 * never half of one: written under a temporary name (a stale one removed first, the new
 * one created exclusively, never through a link), fsynced, then renamed over `path`.
 * The directory is not fsynced: that is the caller's, once for all the files it writes.
 * A failure is a StorageError naming `step` and `path` (opening names `what`).
 */
export function writeFileWhole(path: string, bytes: Uint8Array, step: string, what: string): void {
  const temporary = temporaryPathOf(path);
  try {
    try {
      unlinkSync(temporary);
    } catch {
      // Usually not there.
    }
    const fd = openRegular(temporary, CREATE_NEW, what);
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    throw ioError(step, path, error);
  }
}
