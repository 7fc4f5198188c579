/**
 * The whole generation, as a pure function from the definition texts to the files they produce, so the
 * test can check that what is committed is what the definitions make.
 */
import { type ApiDef, parseDefinition } from './definition.js';
import { apiFilePath, emitApiFile, emitIndexFile } from './emit-api.js';
import { emitVersionFile, versionFilePath } from './emit-version.js';
import { versionsOf } from './version-range.js';

export interface DefinitionSource {
  /** Relative to the package, e.g. `definitions/produce.def`. */
  readonly path: string;
  readonly text: string;
}

/** Path (relative to the package) → file content. */
export function generate(sources: readonly DefinitionSource[]): Map<string, string> {
  const apis: ApiDef[] = sources.map((s) => parseDefinition(s.path, s.text));
  const keys = new Map<number, string>();
  for (const api of apis) {
    const other = keys.get(api.key);
    if (other !== undefined) throw new Error(`${api.file}: key ${api.key} is already ${other}'s`);
    keys.set(api.key, api.name);
  }
  const files = new Map<string, string>();
  for (const api of apis) {
    files.set(apiFilePath(api), emitApiFile(api, api.file));
    for (const v of versionsOf(api.serve))
      files.set(versionFilePath(api, v), emitVersionFile(api, v, api.file));
  }
  files.set('src/apis/index.ts', emitIndexFile(apis));
  return files;
}
