import type { RecordInput } from '@klog/storage';

const encoder = new TextEncoder();
const ITEMS = ['ชาเย็น', 'ข้าวมันไก่', 'ผัดกะเพรา', 'ต้มยำกุ้ง', 'ข้าวเหนียวมะม่วง'];

/** One order per sequence number: key `order-<seq>`, a small JSON value. */
export function orderRecords(first: number, last: number): RecordInput[] {
  const records: RecordInput[] = [];
  for (let seq = first; seq <= last; seq++) {
    const value = JSON.stringify({ order: seq, item: ITEMS[seq % ITEMS.length] });
    records.push({ key: encoder.encode(`order-${seq}`), value: encoder.encode(value) });
  }
  return records;
}

/**
 * A record for the narrowing edge: big enough (a delivery note in the value) that
 * two of its batches never fit in a 256-byte segment, so each batch rolls a segment.
 * The demo computes and checks that from the real sizes; it does not assume it.
 */
export function deliveryRecord(seq: number): RecordInput[] {
  const value = JSON.stringify({ order: seq, note: 'ส่งถึงหน้าบ้านก่อนเที่ยง' });
  return [{ key: encoder.encode(`delivery-${seq}`), value: encoder.encode(value) }];
}
