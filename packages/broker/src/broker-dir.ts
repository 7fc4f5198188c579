import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

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
