import { describe, expect, it } from 'vitest';
import { formatStartup } from '../src/broker/startup-bench.js';

describe('formatStartup: the start-up and idle RSS lines of pnpm bench:broker', () => {
  it('divides klog by Node and says whether each goal (2×, 1.3×) is met', () => {
    const lines = formatStartup({
      rounds: 9,
      nodeMs: 120,
      klogMs: 300,
      nodeListenRssMiB: 50,
      klogIdleRssMiB: 60,
    });
    expect(lines).toEqual([
      'start-up: klog serve answers ApiVersions in 300 ms, node -e 0 exits in 120 ms: 2.50× (goal ≤ 2×, NOT met; medians of 9)',
      'idle RSS: klog serve 60.0 MiB, a listening node 50.0 MiB: 1.20× (goal ≤ 1.3×, met; medians of 9)',
    ]);
  });

  it('a ratio exactly at its goal meets it', () => {
    const [startup, rss] = formatStartup({
      rounds: 3,
      nodeMs: 100,
      klogMs: 200,
      nodeListenRssMiB: 40,
      klogIdleRssMiB: 52,
    });
    expect(startup).toMatch(/: 2\.00× \(goal ≤ 2×, met;/);
    expect(rss).toMatch(/: 1\.30× \(goal ≤ 1\.3×, met;/);
  });
});
