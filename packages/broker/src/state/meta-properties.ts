import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurably } from './broker-dir.js';

export const META_PROPERTIES_FILE = 'meta.properties';

export class MetaPropertiesError extends Error {
  override readonly name = 'MetaPropertiesError';
}

/**
 * The data directory's identity, as Kafka keeps it in `meta.properties`: the cluster id (made once, 16
 * random bytes in base64url like Kafka's `Uuid`) and the node id. A directory made for one node id refuses
 * to start as another, as Kafka's "Stale node.id" check does.
 */
export function loadOrCreateMetaProperties(
  dir: string,
  nodeId: number,
  fsyncDir: (dir: string) => void,
): { clusterId: string } {
  const path = join(dir, META_PROPERTIES_FILE);
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text !== undefined) {
    const props = new Map<string, string>();
    for (const line of text.split('\n')) {
      const m = /^([a-z.]+)=(.*)$/.exec(line.trim());
      if (m !== null) props.set(m[1]!, m[2]!);
    }
    const clusterId = props.get('cluster.id');
    const node = props.get('node.id');
    if (clusterId === undefined || !/^[A-Za-z0-9_-]{22}$/.test(clusterId) || node === undefined) {
      throw new MetaPropertiesError(`${path} has no valid cluster.id and node.id`);
    }
    if (Number(node) !== nodeId) {
      throw new MetaPropertiesError(
        `${path} belongs to node ${node}, not ${nodeId}: start with --node-id ${node}`,
      );
    }
    return { clusterId };
  }
  const clusterId = randomBytes(16).toString('base64url');
  writeFileDurably(
    path,
    `# written by klog serve\ncluster.id=${clusterId}\nnode.id=${nodeId}\nversion=1\n`,
    fsyncDir,
  );
  return { clusterId };
}
