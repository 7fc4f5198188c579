/**
 * Copies Kafka's `about` texts into definitions: under every field that has none, the about of the field
 * of that name (and path) in Kafka's message JSON, as quoted lines. Nothing else in the file changes.
 *
 *   pnpm --filter @klog/protocol exec tsx generator/about-from-kafka.ts <kafka message dir> [definitions/x.def …]
 *
 * Without files, every definition. A field Kafka does not have (or has without an about) is left as it is.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type KafkaField, load } from './compare-kafka.js';
import { type FieldDef, parseDefinition } from './definition.js';
import { PACKAGE_DIR, readDefinitions } from './main.js';

const WIDTH = 110;

/** `text` as quoted lines of at most WIDTH columns at `indent` (a word longer than that stays whole). */
export function aboutLines(text: string, indent: string): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (line !== '' && indent.length + JSON.stringify(next).length > WIDTH) {
      out.push(line);
      line = word;
    } else line = next;
  }
  if (line !== '') out.push(line);
  // Joined with one space when read back: every line but the last ends where a space was.
  return out.map((l) => `${indent}${JSON.stringify(l)}`);
}

/** The definition text with Kafka's abouts added under the fields that lack one. */
export function withKafkaAbouts(path: string, text: string, dirs: readonly string[]): string {
  const api = parseDefinition(path, text);
  const lines = text.split('\n');
  const inserts = new Map<number, string[]>();
  const visit = (ours: readonly FieldDef[], theirs: readonly KafkaField[]) => {
    for (const f of ours) {
      const k = theirs.find((x) => x.name === f.name);
      if (k === undefined) continue;
      if (f.about === undefined && k.about !== undefined && k.about.trim() !== '') {
        const raw = lines[f.line - 1]!;
        const indent = `${raw.slice(0, raw.length - raw.trimStart().length)}  `;
        inserts.set(f.line, aboutLines(k.about, indent));
      }
      visit(f.fields, k.fields ?? []);
    }
  };
  for (const message of [api.request, api.response]) {
    // The newest directory first: a field only an older Kafka has takes its about from there.
    visit(
      message.fields,
      load(dirs, message.name).flatMap((m) => m.fields),
    );
  }
  return lines.flatMap((l, i) => [l, ...(inserts.get(i + 1) ?? [])]).join('\n');
}

function main(): void {
  const [dir, ...files] = process.argv.slice(2);
  if (dir === undefined) {
    console.error('usage: tsx generator/about-from-kafka.ts <kafka message dir> [definitions/x.def …]');
    process.exit(2);
  }
  const sources = readDefinitions().filter((s) => files.length === 0 || files.includes(s.path));
  for (const source of sources) {
    const updated = withKafkaAbouts(source.path, source.text, [dir]);
    if (updated !== source.text) writeFileSync(join(PACKAGE_DIR, source.path), updated);
    console.log(`${updated === source.text ? 'unchanged' : 'about texts added'}  ${source.path}`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
