import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bench package's directory (this file runs from bench/dist or bench/src). */
export const BENCH_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
export const RESULTS_PATH = join(BENCH_DIR, 'results.json');
/** The site's Performance page, rendered from RESULTS_PATH. */
export const PAGE_PATH = join(BENCH_DIR, '..', 'docs', 'performance.mdx');
/** `pnpm bench:broker`'s figures: klog serve against librdkafka's mock cluster and loopback sockets. */
export const BROKER_RESULTS_PATH = join(BENCH_DIR, 'broker-results.json');
