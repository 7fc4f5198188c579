// The code examples of a README, as the pack test runs them: every ```ts block, and the output it
// promises in a trailing `// Output:` comment, one `// ` line per line printed (as Go's testable
// examples do). A block without `// Output:` is still compiled and run; it must only not fail.

/** @returns {{ line: number, code: string, output: string | undefined }[]} */
export function readmeExamples(markdown) {
  const examples = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== '```') end++;
    const body = lines.slice(start, end);
    const marker = body.findIndex((l) => l.trim() === '// Output:');
    const code = (marker === -1 ? body : body.slice(0, marker)).join('\n') + '\n';
    const output =
      marker === -1
        ? undefined
        : body
            .slice(marker + 1)
            .map((l) => l.replace(/^\/\/ ?/, ''))
            .join('\n') + '\n';
    examples.push({ line: start + 1, code, output });
    i = end;
  }
  return examples;
}
