import { createColors } from 'picocolors';

/**
 * Colour only for a person at a terminal: stdout is a TTY and NO_COLOR is unset
 * or empty (https://no-color.org). Piped output, and so the golden file, is plain.
 */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  const noColor = env['NO_COLOR'];
  return stream.isTTY === true && (noColor === undefined || noColor === '');
}

export type Style = ReturnType<typeof createColors>;

export function createStyle(enabled: boolean): Style {
  return createColors(enabled);
}
