import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from 'node:fs';
import { DecodeError, StorageError } from '../errors.js';

/**
 * Every file system call of the package goes through `io`, so that what escapes is a
 * StorageError naming the step and the path (`KAFKA_STORAGE_ERROR`, with the errno:
 * ENOSPC, EMFILE, EISDIR, …), never a bare Node error.
 */
export function io<T>(step: string, path: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw ioError(step, path, error);
  }
}

/** `error` as a StorageError about `step` on `path`; StorageErrors and DecodeErrors pass through. */
export function ioError(step: string, path: string, error: unknown): Error {
  if (error instanceof StorageError || error instanceof DecodeError) return error;
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = errno === undefined ? String(error) : `${errno} (${describeErrno(errno, error)})`;
  return new StorageError('KAFKA_STORAGE_ERROR', `${step} ${path}: ${reason}`, {
    path,
    step,
    cause: error,
    ...(errno === undefined ? {} : { errno }),
  });
}

function describeErrno(errno: string, error: unknown): string {
  switch (errno) {
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'EEXIST':
      return 'already exists';
    case 'ENOENT':
      return 'no such file or directory';
    case 'ELOOP':
      return 'is a symbolic link';
    default: {
      const message = (error as Error).message ?? '';
      const colon = message.indexOf(': ');
      return colon === -1 ? message : message.slice(colon + 2).replace(/, \w+ '.*'$/, '');
    }
  }
}

/**
 * Flags for opening a file inside a partition directory: never through a symbolic
 * link (O_NOFOLLOW), and without blocking on a FIFO (O_NONBLOCK; no effect on a
 * regular file), so that `checkRegularFile` can refuse it after the open.
 */
export const NO_FOLLOW = constants.O_NOFOLLOW | constants.O_NONBLOCK;
export const OPEN_READ = constants.O_RDONLY | NO_FOLLOW;
export const OPEN_READ_WRITE = constants.O_RDWR | NO_FOLLOW;
export const CREATE_NEW = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;
export const CREATE_OR_OPEN = constants.O_RDWR | constants.O_CREAT | NO_FOLLOW;

/** What a directory entry is, without following it: a regular file is the only thing a log reads or writes. */
export function entryKind(
  stats: Pick<
    Stats,
    | 'isFile'
    | 'isDirectory'
    | 'isSymbolicLink'
    | 'isFIFO'
    | 'isSocket'
    | 'isCharacterDevice'
    | 'isBlockDevice'
  >,
): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function notRegular(path: string, what: string, stats: Stats): StorageError {
  return new StorageError(
    'NOT_A_SEGMENT',
    `${what} ${path} is ${entryKind(stats)}; klog reads and writes only regular files inside a partition directory`,
    { path },
  );
}

/** Refuse `path` unless it is a regular file itself (not a link to one). */
export function checkRegularFile(path: string, what: string): void {
  const stats = io(`look at ${what}`, path, () => lstatSync(path));
  if (!stats.isFile()) throw notRegular(path, what, stats);
}

/** Open a file inside a partition directory: never through a link, and it must be a regular file. */
export function openRegular(path: string, flags: number, what: string, mode = 0o644): number {
  let fd: number;
  try {
    fd = openSync(path, flags, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') checkRegularFile(path, what);
    throw ioError(`open ${what}`, path, error);
  }
  const stats = io(`look at ${what}`, path, () => fstatSync(fd));
  if (!stats.isFile()) {
    closeSync(fd);
    throw notRegular(path, what, stats);
  }
  return fd;
}
