/**
 * The whole generation, as a pure function from the definition texts to the files they produce, so the
 * test can check that what is committed is what the definitions make.
 */
import { type ApiDef, parseDefinition } from './definition.js';
import { apiFilePath, emitApiFile, emitIndexFile } from './emit-api.js';
import { codeVersions, emitVersionFile, versionFilePath } from './emit-version.js';
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
    // A version the same on the wire as an earlier one has no file: the earlier one's reads and writes it,
    // and its header names it (a file of re-exports nothing imports would only be noise).
    const code = codeVersions(api);
    for (const v of versionsOf(api.serve)) {
      if ((code.get(v) ?? v) === v) files.set(versionFilePath(api, v), emitVersionFile(api, v, api.file));
    }
  }
  files.set('src/apis/index.ts', emitIndexFile(apis));
  return files;
}
