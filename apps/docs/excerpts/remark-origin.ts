// A remark plugin that stamps every <Excerpt> and <RunOutput> with where the lesson writes it,
// `at="docs/07-idem.mdx:123:1"` (line and column: two tags may share a line), so each rendered
// block carries its place in the lesson and the checker can name both places when a built block
// and its source disagree.
import { realpathSync } from 'node:fs';
import { EXCERPT_TAG, type Node, OUTPUT_TAG } from './references.js';
import { ExcerptError, repoPath } from './source.js';

export function remarkExcerptOrigin(options: { root: string }) {
  return (tree: Node, file: { path?: string }) => {
    if (!file.path) return;
    const lesson = repoPath(options.root, realpathSync(file.path));
    const walk = (node: Node): void => {
      if (
        (node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') &&
        (node.name === EXCERPT_TAG || node.name === OUTPUT_TAG)
      ) {
        const line = node.position?.start.line ?? 0;
        const column = node.position?.start.column ?? 0;
        const attrs = node.attributes ?? [];
        for (const a of attrs) {
          if (a.type !== 'mdxJsxAttribute' || typeof a.value !== 'string') {
            throw new ExcerptError(
              `${lesson}:${line}: <${node.name}> attributes must be plain strings (name="value") so the checker can read them`,
            );
          }
        }
        node.attributes = [
          ...attrs.filter((a) => a.name !== 'at'),
          { type: 'mdxJsxAttribute', name: 'at', value: `${lesson}:${line}:${column}` },
        ];
      }
      for (const child of node.children ?? []) walk(child);
    };
    walk(tree);
  };
}
