// Stands in for rehype-mermaid on a machine without Chromium (never in CI): each ```mermaid
// block becomes a visible notice instead of a code block, so nothing is pasted as code.
interface Node {
  type: string;
  tagName?: string;
  properties?: { className?: unknown };
  children?: Node[];
  value?: string;
}

function isMermaid(node: Node): boolean {
  const code = node.tagName === 'pre' ? node.children?.find((c) => c.tagName === 'code') : undefined;
  const classes = code?.properties?.className;
  return Array.isArray(classes) && classes.includes('language-mermaid');
}

export function rehypeMermaidPlaceholder() {
  return (tree: Node) => {
    const walk = (node: Node) => {
      if (!node.children) return;
      node.children = node.children.map((child) =>
        isMermaid(child)
          ? {
              type: 'element',
              tagName: 'p',
              properties: { className: ['klog-diagram__missing'] },
              children: [{ type: 'text', value: 'ยังไม่ได้วาดภาพนี้: เครื่องที่ build ไม่มี chromium' }],
            }
          : child,
      );
      for (const child of node.children) walk(child);
    };
    walk(tree);
  };
}
