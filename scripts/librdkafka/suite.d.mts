// Types of suite.mjs, for the tests written in TypeScript that run a client on the suite's librdkafka.
export interface Suite {
  readonly name: string;
  readonly version: string;
  readonly protocols: readonly string[];
  readonly origin: string;
}
export declare const SUITES: { readonly npm: Suite; readonly debian: Suite };
export declare const DEFAULT_SUITE: string;
export declare class SuiteError extends Error {}
export declare function cacheDir(suite: Suite): string;
export declare function treeDir(suite: Suite): string;
export declare function ensureSource(suite: Suite): string;
export declare function ensureBuilt(suite: Suite, tree: string): string;
export declare function prepareSuite(suite: Suite): string;
