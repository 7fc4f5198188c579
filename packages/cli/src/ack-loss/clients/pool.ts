/**
 * Runs `tasks` with at most `limit` of them going at once, in order of start; resolves when all are done
 * (a failing task does not stop the others: each reports its own result).
 */
export async function inPool(limit: number, tasks: readonly (() => Promise<void>)[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      await task();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}

/** `keys` cut into groups of at most `size`, in order. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
