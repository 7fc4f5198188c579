import type { BatchHeaderFields } from '@klog/core';
import type { WindowedBatch } from '@klog/storage';

/** What the broker asks the learner's window, one batch at a time: storage's `WindowedBatch`, as it came. */
export type HostRequest = {
  readonly kind: 'decide';
  readonly batch: WindowedBatch;
  /** The active segment's headers, sent when the window has not seen the partition yet. */
  readonly headers?: readonly BatchHeaderFields[];
};

export type HostReply =
  | { readonly kind: 'ready'; readonly names: readonly string[] }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'need-headers' }
  | { readonly kind: 'decided'; readonly wrote: boolean; readonly answer: Readonly<Record<string, unknown>> }
  | { readonly kind: 'threw'; readonly message: string };
