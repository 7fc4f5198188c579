// Types of suite.mjs, for the tests written in TypeScript that build against the suite's librdkafka.
export interface Suite {
  readonly name: 'npm' | 'debian';
  readonly version: string;
  readonly protocols: readonly string[];
  readonly origin: string;
}
export declare const SUITES: { readonly npm: Suite; readonly debian: Suite };
export declare const DEFAULT_SUITE: 'npm';
export declare class SuiteError extends Error {}
export declare function cacheDir(suite: Suite): string;
export declare function treeDir(suite: Suite): string;
export declare function ensureSource(suite: Suite): string;
export declare function ensureBuilt(suite: Suite, tree: string): string;
/** ensureBuilt over ensureSource under the cache's lock, for tests that run side by side. */
export declare function ensureBuiltShared(suite: Suite): string;
/** The built librdkafka's src/ (the .so and rdkafka.h), built first under the cache's lock. */
export declare function librdkafkaLibDir(suite: Suite): string;
export declare function prepareSuite(suite: Suite): string;
