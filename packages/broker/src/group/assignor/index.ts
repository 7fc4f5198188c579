export * from './partition-assignor.js';
export { RangeAssignor } from './range-assignor.js';
export { UniformAssignor } from './uniform-assignor.js';

import type { ConsumerGroupPartitionAssignor } from './partition-assignor.js';
import { RangeAssignor } from './range-assignor.js';
import { UniformAssignor } from './uniform-assignor.js';

/** The built-in server assignors by name, Kafka's `group.consumer.assignors` default order (uniform, range). */
export const BUILT_IN_ASSIGNORS: ReadonlyMap<string, ConsumerGroupPartitionAssignor> = new Map<
  string,
  ConsumerGroupPartitionAssignor
>([
  ['uniform', new UniformAssignor()],
  ['range', new RangeAssignor()],
]);
