/** Kafka's `TransactionalId` → `transactionalId` (TypeScript properties). */
export function camel(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** Kafka's `TransactionalId` → `transactional_id`, as the protocol guide prints field names. */
export function snake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** `InitProducerId` → `init-producer-id` (file names, as @platformatic/kafka names its API files). */
export function kebab(name: string): string {
  return snake(name).replaceAll('_', '-');
}
