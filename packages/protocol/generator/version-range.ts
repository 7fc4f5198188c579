/**
 * A version range as Kafka's message definitions write it (`Versions.parse`): `3+`, `0-12`, `5`, `none`.
 */
export interface VersionRange {
  readonly min: number;
  /** Inclusive; Infinity for `N+`. */
  readonly max: number;
}

export const NO_VERSIONS: VersionRange = { min: 0, max: -1 };

export function parseRange(text: string): VersionRange {
  if (text === 'none') return NO_VERSIONS;
  let m = /^(\d+)\+$/.exec(text);
  if (m) return { min: Number(m[1]), max: Number.POSITIVE_INFINITY };
  m = /^(\d+)-(\d+)$/.exec(text);
  if (m) {
    const range = { min: Number(m[1]), max: Number(m[2]) };
    if (range.max < range.min) throw new Error(`version range ${text} is empty`);
    return range;
  }
  m = /^(\d+)$/.exec(text);
  if (m) return { min: Number(m[1]), max: Number(m[1]) };
  throw new Error(`${JSON.stringify(text)} is not a version range (3+, 0-12, 5 or none)`);
}

export function contains(range: VersionRange, version: number): boolean {
  return version >= range.min && version <= range.max;
}

export function isEmpty(range: VersionRange): boolean {
  return range.max < range.min;
}

export function intersects(a: VersionRange, b: VersionRange): boolean {
  return Math.max(a.min, b.min) <= Math.min(a.max, b.max);
}

/** Whether every version of `inner` is in `outer`. */
export function within(inner: VersionRange, outer: VersionRange): boolean {
  return isEmpty(inner) || (inner.min >= outer.min && inner.max <= outer.max);
}

export function formatRange(range: VersionRange): string {
  if (isEmpty(range)) return 'none';
  if (range.max === Number.POSITIVE_INFINITY) return `${range.min}+`;
  if (range.min === range.max) return `${range.min}`;
  return `${range.min}-${range.max}`;
}

export function versionsOf(range: VersionRange): number[] {
  if (range.max === Number.POSITIVE_INFINITY) throw new Error('an open range has no list of versions');
  const out: number[] = [];
  for (let v = range.min; v <= range.max; v++) out.push(v);
  return out;
}
