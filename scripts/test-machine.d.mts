// Types of test-machine.mjs, for the tests written in TypeScript that read its table.
export interface Tool {
  readonly name: string;
  readonly packages: readonly string[];
  readonly what: string;
  readonly required?: boolean;
  /** A tool built from source by `node scripts/test-machine.mjs` (librdkafka 2.15.1, kafka-javascript), its build packages above. */
  readonly build?: () => unknown;
}
export declare const TOOLS: readonly Tool[];
export declare function optedOut(env?: NodeJS.ProcessEnv): Set<string>;
export declare function missingMessage(name: string, why?: string): string;
export declare function requireTool(
  name: string,
  present: boolean,
  why?: string,
  env?: NodeJS.ProcessEnv,
): boolean;
export declare function missingPackages(env?: NodeJS.ProcessEnv): string[] | undefined;
