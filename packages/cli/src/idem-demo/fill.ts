/**
 * The batches the demo sends before `A` (the batch the user names with --seq A..B).
 *
 * Rule: sequences 0..A-1 go in at most four batches, counted back from A: one
 * record, then two (A-3..A-2), then two (A-5..A-4), then one batch with
 * everything left (0..A-6). Ranges that would be empty are skipped. With the
 * batch A..B that makes at most five, so the window is exactly full after it;
 * for A = 7 the rule gives the chapter's 0..1 2..3 4..5 6..6.
 */
export function fillBatches(a: number): Array<readonly [number, number]> {
  const batches: Array<readonly [number, number]> = [];
  let end = a; // exclusive
  for (const size of [1, 2, 2]) {
    const take = Math.min(size, end);
    if (take === 0) break;
    batches.unshift([end - take, end - 1]);
    end -= take;
  }
  if (end > 0) batches.unshift([0, end - 1]);
  return batches;
}
