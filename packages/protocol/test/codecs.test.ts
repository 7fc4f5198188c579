import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { versionsOf } from '../generator/version-range.js';
import { API_CODECS, type ApiCodec } from '../src/index.js';
import { Reader } from '../src/wire/reader.js';
import { Writer } from '../src/wire/writer.js';
import { asSeenIn, DEFINITIONS, messageArb, readFields, writeFields } from './definition-codec.js';

/**
 * Every served version of every API, against the interpreter of test/definition-codec.ts: a request any
 * value of that version, written field by field as a client would, is read back to the same value; a
 * response the generated writer makes is read by the interpreter to what that version can carry. And the
 * same for the client's direction (klog's own tools).
 */
describe('generated codecs against the definition interpreter', () => {
  for (const api of DEFINITIONS) {
    const codec = API_CODECS.get(api.key) as ApiCodec<unknown, unknown>;
    for (const v of versionsOf(api.serve)) {
      it(`${api.name} v${v}: request read = written`, () => {
        fc.assert(
          fc.property(messageArb(api, api.request.fields, v, 'default'), (value) => {
            const w = new Writer();
            writeFields(api, api.request.fields, value, v, w);
            const bytes = w.toBytes();
            const r = new Reader(bytes);
            expect(codec.readRequest(v, r)).toEqual(value);
            expect(r.offset).toBe(bytes.length);
          }),
          { numRuns: 150 },
        );
      });
      it(`${api.name} v${v}: response written = read`, () => {
        fc.assert(
          fc.property(messageArb(api, api.response.fields, v, 'any'), (value) => {
            const w = new Writer();
            codec.writeResponse(v, w, value);
            const bytes = w.toBytes();
            const r = new Reader(bytes);
            expect(readFields(api, api.response.fields, v, r)).toEqual(
              asSeenIn(api, api.response.fields, value, v),
            );
            expect(r.offset).toBe(bytes.length);
          }),
          { numRuns: 150 },
        );
      });
      it(`${api.name} v${v}: the client's side — request written = read, response read = written`, () => {
        fc.assert(
          fc.property(
            messageArb(api, api.request.fields, v, 'any'),
            messageArb(api, api.response.fields, v, 'default'),
            (request, response) => {
              const w = new Writer();
              codec.writeRequest(v, w, request);
              const bytes = w.toBytes();
              const r = new Reader(bytes);
              expect(readFields(api, api.request.fields, v, r)).toEqual(
                asSeenIn(api, api.request.fields, request, v),
              );
              expect(r.offset).toBe(bytes.length);
              const w2 = new Writer();
              writeFields(api, api.response.fields, response, v, w2);
              const bytes2 = w2.toBytes();
              const r2 = new Reader(bytes2);
              expect(codec.readResponse(v, r2)).toEqual(asSeenIn(api, api.response.fields, response, v));
              expect(r2.offset).toBe(bytes2.length);
            },
          ),
          { numRuns: 100 },
        );
      });
    }
  }

  it('every API has a codec and every codec a definition', () => {
    expect([...API_CODECS.keys()].sort((a, b) => a - b)).toEqual(
      DEFINITIONS.map((a) => a.key).sort((a, b) => a - b),
    );
  });
});
