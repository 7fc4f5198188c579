import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where the broker keeps its own files in a data directory (meta.properties, the producer id block): a
 * hidden directory beside the partitions, since the log manager takes every visible entry of a data
 * directory for a `<topic>-<partition>`.
 */
export const BROKER_DIR = '.broker';

/** Creates `<dataDir>/.broker` if needed (durably) and returns its path. */
export function brokerDir(dataDir: string, fsyncDir: (dir: string) => void): string {
  const dir = join(dataDir, BROKER_DIR);
  if (mkdirSync(dir, { recursive: true }) !== undefined) fsyncDir(dataDir);
  return dir;
}

/**
 * Replaces `path` with `text` so that a crash leaves the old file or the new one, never a part: written
 * beside it, fsynced, renamed over it, then the directory fsynced so the rename itself stays.
 */
export function writeFileDurably(path: string, text: string, fsyncDir: (dir: string) => void): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}
