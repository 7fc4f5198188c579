/**
 * The shape every klog setting is written in, broker or topic: Kafka's `ConfigDef` (a name, a type, a default,
 * a validator and a doc per setting). Pure data and parsing: the CLI prints flags and help from it, the broker
 * checks values and answers DescribeConfigs from it.
 */

/** Kafka's `ConfigDef.Type`, as DescribeConfigs v3+ numbers it (`DescribeConfigsResponse.ConfigType`). */
export const CONFIG_TYPE = { BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7 } as const;
export type ConfigTypeName = keyof typeof CONFIG_TYPE;

/** A value read, normalised as Kafka prints it back, or why it cannot be. */
export type Parsed =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly reason: string };

/**
 * What values a setting takes (Kafka's `ConfigDef.Validator`: `Range`, `ValidString`, `ValidList`), as data so
 * that help and errors can say it.
 */
export type Validator =
  /** A whole number from `min` to `max` (Kafka's `Range.between`; `atLeast` with the type's own maximum). */
  | { readonly kind: 'range'; readonly min: number; readonly max: number }
  /**
   * A LONG from `min` to Java's `Long.MAX_VALUE`, exact (Kafka's `Range.atLeast` on a LONG): for the settings
   * klog only stores, whose defaults (`flush.ms`) are `Long.MAX_VALUE`, past what a JavaScript number holds.
   */
  | { readonly kind: 'long'; readonly min: number }
  /** A whole number from `min` to `max`, or `or` (gzip's level: -1, its default, or 1 to 9). */
  | { readonly kind: 'rangeOr'; readonly min: number; readonly max: number; readonly or: number }
  /**
   * Kafka's `ThrottledReplicaListValidator`: empty, `*`, or a list of `partition:broker` pairs.
   */
  | { readonly kind: 'throttledReplicas' }
  /** A number from `min` to `max`, fractions allowed (a DOUBLE). */
  | { readonly kind: 'fraction'; readonly min: number; readonly max: number }
  | { readonly kind: 'boolean' }
  /** One of these words, exactly (Kafka's `ValidString.in`). */
  | { readonly kind: 'oneOf'; readonly values: readonly string[] }
  /** A comma-separated list of these words, at least one (Kafka's `ValidList.in`), printed without spaces. */
  | { readonly kind: 'listOf'; readonly values: readonly string[] }
  /**
   * A share group's `share.auto.offset.reset` (Kafka's `ShareGroupAutoOffsetResetStrategy`): `latest`,
   * `earliest`, or `by_duration:` and a duration that is not negative, ISO-8601 (`PnDTnHnMn.nS`).
   */
  | { readonly kind: 'shareOffsetReset' }
  /** A host name or address: not empty, no spaces. */
  | { readonly kind: 'host' }
  /** A directory: not empty. */
  | { readonly kind: 'path' };

/** Java's `Integer.MAX_VALUE`: the top of an INT setting. */
export const INT_MAX = 2 ** 31 - 1;
/** A LONG setting's top, as far as a JavaScript number holds it exactly. */
export const LONG_MAX = Number.MAX_SAFE_INTEGER;
/** Java's `Long.MAX_VALUE`, as text: the default of several LONG settings Kafka has. */
export const JAVA_LONG_MAX = '9223372036854775807';

/** Java's `Duration.parse` format, without a sign (Kafka refuses a negative duration). */
const DURATION = /^P(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d{1,9})?S)?)?$/i;

const ok = (value: string): Parsed => ({ ok: true, value });
const bad = (reason: string): Parsed => ({ ok: false, reason });

/** A setting's value given as text (a flag, a server.properties line, an AlterConfigs entry), checked. */
export function parseConfigValue(validator: Validator, raw: string): Parsed {
  const text = raw.trim();
  switch (validator.kind) {
    case 'range': {
      const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(n)) return bad(`expected a whole number, got ${JSON.stringify(raw)}`);
      if (n < validator.min || n > validator.max)
        return bad(`must be from ${validator.min} to ${validator.max}, got ${n}`);
      return ok(String(n));
    }
    case 'long': {
      if (!/^-?\d+$/.test(text)) return bad(`expected a whole number, got ${JSON.stringify(raw)}`);
      const n = BigInt(text);
      if (n < BigInt(validator.min) || n > BigInt(JAVA_LONG_MAX))
        return bad(`must be from ${validator.min} to ${JAVA_LONG_MAX}, got ${n}`);
      return ok(String(n));
    }
    case 'rangeOr': {
      const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(n)) return bad(`expected a whole number, got ${JSON.stringify(raw)}`);
      if (n !== validator.or && (n < validator.min || n > validator.max))
        return bad(`must be ${validator.or} or from ${validator.min} to ${validator.max}, got ${n}`);
      return ok(String(n));
    }
    case 'throttledReplicas': {
      const items = raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      if (items.length === 1 && items[0] === '*') return ok('*');
      const wrong = items.find((s) => !/^\d+:\d+$/.test(s));
      if (wrong !== undefined)
        return bad(`must be * or a list of partition:broker pairs, got ${JSON.stringify(wrong)}`);
      return ok(items.join(','));
    }
    case 'fraction': {
      const n = Number(text);
      if (text === '' || !Number.isFinite(n)) return bad(`expected a number, got ${JSON.stringify(raw)}`);
      if (n < validator.min || n > validator.max)
        return bad(`must be from ${validator.min} to ${validator.max}, got ${n}`);
      return ok(String(n));
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      return lower === 'true' || lower === 'false'
        ? ok(lower)
        : bad(`expected true or false, got ${JSON.stringify(raw)}`);
    }
    case 'oneOf':
      return validator.values.includes(text)
        ? ok(text)
        : bad(`must be one of ${validator.values.join(', ')}, got ${JSON.stringify(raw)}`);
    case 'listOf': {
      const items = raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      const words = validator.values.join(' and ');
      if (items.length === 0) return bad(`needs ${validator.values.join(', ')}, or both`);
      const wrong = items.find((s) => !validator.values.includes(s));
      if (wrong !== undefined) return bad(`must be a list of ${words}, got ${JSON.stringify(wrong)}`);
      return ok([...new Set(items)].join(','));
    }
    case 'shareOffsetReset': {
      const lower = text.toLowerCase();
      if (lower === 'latest' || lower === 'earliest') return ok(lower);
      const duration = /^by_duration:(.*)$/i.exec(text)?.[1];
      if (duration !== undefined && DURATION.test(duration) && /\d/.test(duration)) return ok(text);
      return bad(`must be latest, earliest or by_duration:<PnDTnHnMn.nS>, got ${JSON.stringify(raw)}`);
    }
    case 'host':
      return text === '' || /\s/.test(raw) ? bad('expected a host name or address') : ok(raw);
    case 'path':
      return text === '' ? bad('expected a directory') : ok(raw);
  }
}

/** How help prints what a validator accepts: `61 to 2147483647`, `one of CreateTime, LogAppendTime`. */
export function validatorText(validator: Validator): string | undefined {
  switch (validator.kind) {
    case 'range':
    case 'fraction':
      return `${validator.min} to ${validator.max}`;
    case 'long':
      return `${validator.min} to ${JAVA_LONG_MAX}`;
    case 'rangeOr':
      return `${validator.or}, or ${validator.min} to ${validator.max}`;
    case 'oneOf':
      return `one of ${validator.values.join(', ')}`;
    case 'listOf':
      return `a list of ${validator.values.join(', ')}`;
    default:
      return undefined;
  }
}

/** Kafka's names are dotted (`log.retention.ms`), klog's flags kebab-cased from them (`--log-retention-ms`). */
export function flagOfName(name: string): string {
  return `--${name.replaceAll('.', '-')}`;
}

/** A camel-cased field (`groupMinSessionTimeoutMs`) as its flag (`--group-min-session-timeout-ms`). */
export function flagOfKey(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
