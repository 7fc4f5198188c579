import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { readBrokerResults } from './broker/results.js';
import { renderPerformancePage } from './page.js';
import { BROKER_RESULTS_PATH, PAGE_PATH, RESULTS_PATH } from './paths.js';
import type { BenchResults } from './results.js';

/** `pnpm bench:page`: render docs/performance.mdx again from bench/results.json (and broker-results.json), measuring nothing. */
try {
  const results = JSON.parse(readFileSync(RESULTS_PATH, 'utf8')) as BenchResults;
  mkdirSync(dirname(PAGE_PATH), { recursive: true });
  writeFileSync(PAGE_PATH, renderPerformancePage(results, readBrokerResults(BROKER_RESULTS_PATH)));
  process.stdout.write(`wrote ${PAGE_PATH} from ${RESULTS_PATH}\n`);
} catch (error) {
  process.stderr.write(`klog bench:page: ${(error as Error).message}\n`);
  process.exit(1);
}
