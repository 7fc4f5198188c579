import { closeSync, constants, ftruncateSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import fsx from 'fs-native-extensions';
import { StorageError } from '../errors.js';
import { io, ioError, NO_FOLLOW, openRegular } from './io.js';

/** The lock file's name, as Kafka's `LogManager` names the one in each log directory. */
export const LOCK_FILE_NAME = '.lock';

/**
 * The single-writer lock of a directory (Kafka's `FileLock` on `<dir>/.lock`). It is
 * an OS lock, not a marker file: an open-file-description lock (`F_OFD_SETLK`, from
 * fs-native-extensions), which the kernel releases when the holder closes it or
 * dies, `kill -9` included, so there is no stale lock to time out. Being per open
 * file, it also refuses a second opener inside the same process. The holder writes
 * its pid into the file so that a refused opener can name it.
 */
export class DirectoryLock {
  #fd: number;

  private constructor(
    readonly path: string,
    fd: number,
  ) {
    this.#fd = fd;
  }

  /**
   * Take the lock of `dir` or throw StorageError `LOCKED` naming the holder's pid.
   * `what` names the directory's role. A shared lock (a partition opened on its own
   * takes one on its data directory) excludes only an exclusive one (a `LogManager`'s).
   */
  static acquire(dir: string, what: string, options: { readonly shared?: boolean } = {}): DirectoryLock {
    const path = join(dir, LOCK_FILE_NAME);
    const shared = options.shared === true;
    const fd = openRegular(path, constants.O_RDWR | constants.O_CREAT | NO_FOLLOW, 'lock file');
    let locked: boolean;
    let heldShared = false;
    try {
      locked = fsx.tryLock(fd, { shared });
      // Refused an exclusive lock: by other shared holders (partitions opened alone), or by one writer?
      if (!locked && !shared && fsx.tryLock(fd, { shared: true })) {
        heldShared = true;
        fsx.unlock(fd);
      }
    } catch (error) {
      closeSync(fd);
      throw ioError('lock', path, error);
    }
    if (!locked) {
      const holder = heldShared ? 'partitions opened on their own (Partition.open)' : holderOf(fd);
      closeSync(fd);
      throw new StorageError(
        'LOCKED',
        `${what} ${dir} is in use by ${holder}: one writer at a time (lock file ${path})`,
        { path },
      );
    }
    // Only an exclusive holder writes its pid: shared holders are many.
    if (shared) return new DirectoryLock(path, fd);
    try {
      const pid = Buffer.from(`${process.pid}\n`);
      io('write the pid into', path, () => {
        ftruncateSync(fd, 0);
        writeSync(fd, pid, 0, pid.length, 0);
      });
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new DirectoryLock(path, fd);
  }

  /** Release the lock (closing the file releases it). */
  release(): void {
    if (this.#fd === -1) return;
    closeSync(this.#fd);
    this.#fd = -1;
  }
}

/** Who holds the lock, from the pid its holder wrote. */
function holderOf(fd: number): string {
  const buf = Buffer.alloc(32);
  let text = '';
  try {
    text = buf
      .subarray(0, readSync(fd, buf, 0, buf.length, 0))
      .toString('latin1')
      .trim();
  } catch {
    // Unreadable: say so below.
  }
  if (!/^\d+$/.test(text)) return 'another process (it has not written its pid yet)';
  const pid = Number(text);
  return pid === process.pid ? `this process (pid ${pid}), through another open` : `process ${pid}`;
}
