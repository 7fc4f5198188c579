// The steps of a <Sequence> diagram.
export type Step =
  /** A message from one actor to the other; `lost` ends it half way, `reply` draws it dashed. */
  | { from: 0 | 1; to: 0 | 1; text: string; lost?: boolean; reply?: boolean }
  /** Something an actor does by itself (the broker judging a batch). */
  | { at: 0 | 1; text: string }
  /** A remark beside an actor's lifeline. */
  | { note: 0 | 1; text: string };
