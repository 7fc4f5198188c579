import { closeSync, constants, fsyncSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StorageError } from '../errors.js';
import { fsyncDirectory } from '../io/fsync.js';
import { io, ioError, NO_FOLLOW, openRegular } from '../io/io.js';

/**
 * A partition's log start offset when DeleteRecords or retention moved it past its first segment's base:
 * Kafka keeps these in one `log-start-offset-checkpoint` per log directory (`LogManager`); klog keeps one
 * per partition directory, beside the segments it describes, so it goes with the partition when the
 * topic is deleted and needs no directory-wide rewrite. Text: a version line (0) and the offset.
 */
export const LOG_START_OFFSET_FILE = 'log-start-offset';

/** The offset kept in `path`, or undefined when there is no such file (the log starts at its first segment). */
export function readLogStartOffset(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError('read log start offset', path, error);
  }
  const match = /^0\n(0|[1-9]\d*)\n$/.exec(text);
  const offset = match === null ? Number.NaN : Number(match[1]);
  if (!Number.isSafeInteger(offset)) {
    throw new StorageError(
      'KAFKA_STORAGE_ERROR',
      `${path} does not hold a log start offset: ${JSON.stringify(text.slice(0, 40))}`,
      {
        path,
      },
    );
  }
  return offset;
}

/** Writes the offset so that a crash leaves the old file or the new one: `.tmp`, fsync, rename, fsync dir. */
export function writeLogStartOffset(dir: string, offset: number): void {
  const path = join(dir, LOG_START_OFFSET_FILE);
  const tmp = `${path}.tmp`;
  const fd = openRegular(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NO_FOLLOW,
    'log start offset file',
  );
  try {
    io('write log start offset', tmp, () => writeSync(fd, `0\n${offset}\n`));
    io('fsync log start offset', tmp, () => fsyncSync(fd));
  } finally {
    closeSync(fd);
  }
  io('rename log start offset', path, () => renameSync(tmp, path));
  fsyncDirectory(dir);
}
