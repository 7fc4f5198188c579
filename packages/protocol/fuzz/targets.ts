import fc from 'fast-check';
import { versionsOf } from '../generator/version-range.js';
import {
  FrameDecoder,
  FrameSizeError,
  ProtocolDecodeError,
  parseRequest,
  ReusingFrameDecoder,
} from '../src/index.js';
import { Writer } from '../src/wire/writer.js';
import { DEFINITIONS, messageArb, writeFields } from '../test/definition-codec.js';

/**
 * The fuzz targets of `pnpm fuzz` and what each must hold for every input:
 * - no exception but the typed one (ProtocolDecodeError, FrameSizeError): a RangeError or TypeError from
 *   deep inside is a bug;
 * - nothing made bigger than the input: the decoded request holds no more array elements and string
 *   characters than the frame has bytes, and its byte strings are views into the frame, not copies;
 * - no hang: the slowest input's time is reported, and `pnpm fuzz` fails past a generous bound.
 */

export interface Figures {
  target: string;
  inputs: number;
  ms: number;
  inputBytes: number;
  largestInput: number;
  slowestInputMs: number;
  outcomes: Map<string, number>;
  failure: string | undefined;
}

export interface Target {
  readonly name: string;
  readonly inputs: fc.Arbitrary<Uint8Array>;
  /** Runs one input; returns a short name for how it ended, throws on a broken rule. */
  run(input: Uint8Array): string;
}

/** A request any client could send: a header and a random body of a served API version. */
const validFrames: fc.Arbitrary<Uint8Array> = fc.constantFrom(...DEFINITIONS).chain((api) =>
  fc.constantFrom(...versionsOf(api.serve)).chain((version) =>
    fc
      .tuple(
        messageArb(api, api.request.fields, version, 'default'),
        fc.integer(),
        fc.option(fc.string({ maxLength: 20 })),
      )
      .map(([body, correlationId, clientId]) => {
        const w = new Writer();
        w.int16(api.key, 'k').int16(version, 'v').int32(correlationId, 'c').nullableString(clientId, 'id');
        if (version >= api.flexible.min) w.uvarint(0, 'tags');
        writeFields(api, api.request.fields, body, version, w);
        return w.toBytes();
      }),
  ),
);

const INTERESTING_INT32 = [0x7fffffff, -1, -2, 0, 1, 0x7fff, 0xffff, 0x10000, 0x3fffffff];

/** A valid frame broken in one of the ways bytes break: flipped, cut, grown, or a length made extreme. */
const mutated: fc.Arbitrary<Uint8Array> = fc
  .tuple(
    validFrames,
    fc.nat(),
    fc.nat(),
    fc.integer({ min: 0, max: 4 }),
    fc.constantFrom(...INTERESTING_INT32),
    fc.uint8Array({ maxLength: 8 }),
  )
  .map(([frame, a, b, how, extreme, extra]) => {
    if (frame.length === 0) return frame;
    const out = Uint8Array.from(frame);
    const at = a % out.length;
    switch (how) {
      case 0:
        out[at]! ^= 1 << (b % 8);
        return out;
      case 1:
        return out.subarray(0, at);
      case 2: {
        const grown = new Uint8Array(out.length + extra.length);
        grown.set(out.subarray(0, at));
        grown.set(extra, at);
        grown.set(out.subarray(at), at + extra.length);
        return grown;
      }
      case 3:
        if (at + 4 <= out.length) new DataView(out.buffer).setInt32(at, extreme);
        return out;
      default:
        out[at] = b % 256;
        return out;
    }
  });

const requestInputs = fc.oneof(
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  { weight: 1, arbitrary: validFrames },
  { weight: 6, arbitrary: mutated },
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** Array elements + string characters in a decoded value; byte strings must be views into `frame`. */
function measure(value: unknown, frame: Uint8Array): number {
  // A UUID's 36 characters come from its 16 bytes; the zero UUID is also the default a version without
  // the field is given (Metadata's TopicId below v10), which comes from no bytes.
  if (typeof value === 'string') return UUID.test(value) ? (value === ZERO_UUID ? 0 : 16) : value.length;
  if (value instanceof Uint8Array) {
    if (value.buffer !== frame.buffer) throw new Error('a byte string was copied out of the frame');
    return 0;
  }
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + measure(v, frame), value.length);
  if (value !== null && typeof value === 'object') {
    return Object.values(value).reduce((n: number, v) => n + measure(v, frame), 0);
  }
  return 0;
}

export const requestDecoder: Target = {
  name: 'request decoder',
  inputs: requestInputs,
  run(frame) {
    let parsed: ReturnType<typeof parseRequest>;
    try {
      parsed = parseRequest(frame);
    } catch (error) {
      if (!(error instanceof ProtocolDecodeError)) throw error;
      if (!Number.isSafeInteger(error.offset) || error.offset < 0 || error.offset > frame.length) {
        throw new Error(`ProtocolDecodeError with a bad offset ${error.offset}: ${error.message}`);
      }
      return `ProtocolDecodeError ${error.field}`;
    }
    if (parsed.kind !== 'request') return parsed.kind;
    const size = measure(parsed.body, frame);
    if (size > frame.length)
      throw new Error(`decoded ${size} elements and characters from ${frame.length} bytes`);
    return `${parsed.codec.name} v${parsed.header.apiVersion}`;
  },
};

/**
 * A byte stream (frames up to a little past the limit, and stray bytes between them) fed in random chunks
 * to both decoders, which must agree frame for frame.
 */
export const frameDecoder: Target = {
  name: 'frame decoder',
  inputs: fc
    .array(
      fc.oneof(
        fc.uint8Array({ maxLength: 70 }).map((body) => {
          const framed = new Uint8Array(4 + body.length);
          new DataView(framed.buffer).setInt32(0, body.length);
          framed.set(body, 4);
          return framed;
        }),
        fc.uint8Array({ maxLength: 6 }),
      ),
      { maxLength: 12 },
    )
    .map((parts) => {
      const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        out.set(p, at);
        at += p.length;
      }
      return out;
    }),
  run(stream) {
    const max = 64;
    // Both decoders on the same chunks: the same frames, the same refusal.
    const d = new FrameDecoder(max);
    const r = new ReusingFrameDecoder(max, 32);
    let frames = 0;
    let at = 0;
    let step = 1;
    const refusal = (f: () => void) => {
      try {
        f();
        return undefined;
      } catch (error) {
        if (error instanceof FrameSizeError) return error.message;
        throw error;
      }
    };
    for (;;) {
      if (at >= stream.length) break;
      const n = Math.min(stream.length - at, step);
      const chunk = stream.subarray(at, at + n);
      d.push(chunk);
      r.push(Uint8Array.from(chunk));
      at += n;
      step = ((step * 7 + (stream[at - 1] ?? 0)) % 23) + 1;
      let refused: [string | undefined, string | undefined] = [undefined, undefined];
      for (;;) {
        let a: Uint8Array | undefined;
        let b: Uint8Array | undefined;
        refused = [refusal(() => (a = d.next())), refusal(() => (b = r.next()))];
        if (refused[0] !== refused[1])
          throw new Error(`the decoders disagree: ${refused[0]} / ${refused[1]}`);
        if (refused[0] !== undefined) return 'FrameSizeError';
        if ((a === undefined) !== (b === undefined))
          throw new Error('one decoder has a frame, the other not');
        if (a === undefined || b === undefined) break;
        if (a.length > max) throw new Error(`a frame of ${a.length} bytes past the limit ${max}`);
        if (a.join() !== b.join()) throw new Error('the decoders give different frames');
        frames++;
      }
      for (const held of [d.bufferedBytes, r.bufferedBytes]) {
        if (held > max + 4 + 23) throw new Error(`${held} bytes held, more than a frame and a chunk`);
      }
    }
    return frames === 0 ? 'no whole frame' : 'frames';
  },
};

export function fuzz(
  target: Target,
  options: { numRuns: number; seed?: number; onProgress?: (done: number) => void },
): Figures {
  const figures: Figures = {
    target: target.name,
    inputs: 0,
    ms: 0,
    inputBytes: 0,
    largestInput: 0,
    slowestInputMs: 0,
    outcomes: new Map(),
    failure: undefined,
  };
  const started = performance.now();
  const result = fc.check(
    fc.property(target.inputs, (input) => {
      const t = performance.now();
      const outcome = target.run(input);
      const ms = performance.now() - t;
      figures.inputs++;
      figures.inputBytes += input.length;
      figures.largestInput = Math.max(figures.largestInput, input.length);
      figures.slowestInputMs = Math.max(figures.slowestInputMs, ms);
      const key = outcome.replace(/\[\]|\.\w+/g, (m) => m);
      figures.outcomes.set(key, (figures.outcomes.get(key) ?? 0) + 1);
      options.onProgress?.(figures.inputs);
    }),
    { numRuns: options.numRuns, ...(options.seed === undefined ? {} : { seed: options.seed }) },
  );
  figures.ms = performance.now() - started;
  if (result.failed) {
    figures.failure = `seed ${result.seed}, path ${result.counterexamplePath}: ${String(result.errorInstance)}\ninput: ${JSON.stringify(
      result.counterexample?.[0] instanceof Uint8Array
        ? [...result.counterexample[0]]
        : result.counterexample,
    )}`;
  }
  return figures;
}
