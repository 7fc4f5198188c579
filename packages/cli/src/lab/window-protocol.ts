import type { BatchHeaderFields } from '@klog/core';

/** What the broker asks the learner's window, one batch at a time. */
export type HostRequest = {
  readonly kind: 'decide';
  /** `topic-partition`. */
  readonly partition: string;
  readonly producerId: number;
  readonly epoch: number;
  readonly firstSeq: number;
  readonly records: number;
  readonly logEndOffset: number;
  /** The batch's max timestamp, what a window keeps of it. */
  readonly timestamp: number;
  /** The active segment's headers, sent when the window has not seen the partition yet. */
  readonly headers?: readonly BatchHeaderFields[];
};

export type HostReply =
  | { readonly kind: 'ready'; readonly names: readonly string[] }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'need-headers' }
  | { readonly kind: 'decided'; readonly wrote: boolean; readonly answer: Readonly<Record<string, unknown>> }
  | { readonly kind: 'threw'; readonly message: string };
