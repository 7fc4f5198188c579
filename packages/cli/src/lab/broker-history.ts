// The history of the broker stage (sends, acks, reads) and its check, with the anomaly names of Jepsen's
// Kafka checker (jepsen.tests.kafka): a value read at two offsets is a `duplicate`, an acknowledged value
// never read a `lost-write`, an ack whose offsets hold other values `inconsistent-offsets`, and one
// producer's acknowledged sends whose offsets go backwards `nonmonotonic-send`. Pure: the stage records,
// this judges.

/** One batch as a client sent it: every value in it is unique to the run. */
export interface SentBatch {
  /** The client and its batch, as the report names them ("producer A, batch a3"). */
  readonly client: string;
  readonly name: string;
  readonly producerId: number;
  readonly epoch: number;
  readonly firstSeq: number;
  readonly values: readonly string[];
}

/** What became of one send of a batch: acknowledged at a base offset, refused with a Kafka error, or no answer. */
export type SendOutcome =
  | { readonly kind: 'ack'; readonly baseOffset: number }
  | { readonly kind: 'error'; readonly error: string }
  | { readonly kind: 'lost'; readonly why: string };

export interface SendEvent {
  readonly batch: SentBatch;
  /** 1 for the first send of the batch, 2 for its first resend, … */
  readonly attempt: number;
  readonly outcome: SendOutcome;
}

export interface History {
  readonly sends: readonly SendEvent[];
  /** Every record of the partition after the run, in offset order. */
  readonly reads: readonly { readonly offset: number; readonly value: string }[];
}

export type AnomalyName = 'duplicate' | 'lost-write' | 'inconsistent-offsets' | 'nonmonotonic-send';

/** The first anomaly found: its name, the batch it is about, and the rule it breaks, in the report's words. */
export interface Anomaly {
  readonly name: AnomalyName;
  readonly batch: SentBatch;
  /** The rule broken, in Thai. */
  readonly rule: string;
  readonly expected: string;
  readonly actual: string;
}

const range = (from: number, count: number) => (count === 1 ? `${from}` : `${from}..${from + count - 1}`);

/** Check the history, anomaly by anomaly in the order above; undefined when it holds. */
export function checkHistory(history: History): Anomaly | undefined {
  const offsetsOf = new Map<string, number[]>();
  const valueAt = new Map<number, string>();
  for (const { offset, value } of history.reads) {
    valueAt.set(offset, value);
    const at = offsetsOf.get(value) ?? [];
    at.push(offset);
    offsetsOf.set(value, at);
  }
  const acks = history.sends.filter(
    (s): s is SendEvent & { outcome: { kind: 'ack' } } => s.outcome.kind === 'ack',
  );
  const batches = [...new Set(history.sends.map((s) => s.batch))];

  for (const batch of batches) {
    for (const value of batch.values) {
      const at = offsetsOf.get(value) ?? [];
      if (at.length > 1) {
        return {
          name: 'duplicate',
          batch,
          rule: `ค่า ${value} อยู่ใน log มากกว่าหนึ่ง offset: ข้อมูลหนึ่งชิ้นต้องลง log ครั้งเดียว ไม่ว่าจะส่งซ้ำกี่รอบ`,
          expected: 'ลง log ครั้งเดียว',
          actual: `อยู่ที่ offset ${at.join(', ')}`,
        };
      }
    }
  }
  for (const { batch, outcome } of acks) {
    const missing = batch.values.find((v) => !offsetsOf.has(v));
    if (missing !== undefined) {
      return {
        name: 'lost-write',
        batch,
        rule: `broker ตอบรับ batch นี้ (offset ${range(outcome.baseOffset, batch.values.length)}) แต่อ่าน log แล้วไม่พบค่า ${missing}: สิ่งที่ตอบรับแล้วต้องอยู่ใน log`,
        expected: `${missing} อยู่ใน log`,
        actual: 'ไม่พบใน log',
      };
    }
  }
  for (const { batch, outcome } of acks) {
    for (const [i, value] of batch.values.entries()) {
      const offset = outcome.baseOffset + i;
      const there = valueAt.get(offset);
      if (there !== value) {
        return {
          name: 'inconsistent-offsets',
          batch,
          rule: `คำตอบบอกว่า batch นี้อยู่ที่ offset ${range(outcome.baseOffset, batch.values.length)} แต่ offset ${offset} ใน log ไม่ใช่ค่า ${value}: offset ที่ตอบไปต้องตรงกับที่อ่านได้`,
          expected: `offset ${offset} = ${value}`,
          actual: `offset ${offset} = ${there ?? '(ไม่มี record)'}`,
        };
      }
    }
  }
  // One producer (id and epoch) in the order it sent: each acknowledged batch lands after the one before.
  const lastAcked = new Map<string, { batch: SentBatch; offset: number }>();
  const firstAck = new Map<SentBatch, number>();
  for (const { batch, outcome } of acks) if (!firstAck.has(batch)) firstAck.set(batch, outcome.baseOffset);
  for (const batch of batches) {
    const offset = firstAck.get(batch);
    if (offset === undefined) continue;
    const producer = `${batch.producerId}/${batch.epoch}`;
    const before = lastAcked.get(producer);
    if (before !== undefined && offset <= before.offset) {
      return {
        name: 'nonmonotonic-send',
        batch,
        rule: `producer คนเดียวกันส่ง ${batch.name} หลัง ${before.batch.name} แต่ได้ offset ที่ไม่มากกว่า: batch ที่ส่งทีหลังต้องลงหลังเสมอ`,
        expected: `offset > ${before.offset}`,
        actual: `offset ${offset}`,
      };
    }
    lastAcked.set(producer, { batch, offset });
  }
  return undefined;
}
