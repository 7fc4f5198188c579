// The simulator's logic without a browser: the chapter's scenario, the in-flight cap, restart and
// roll, and the replay of the checker's counterexample (the browser test drives the same through
// the page).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toProducerId } from '@klog/core';
import { describe, expect, it } from 'vitest';
import { counterexampleReplay } from '../src/components/simulator/replay.js';
import { Sandbox, windowOf } from '../src/components/simulator/sandbox.js';
import { eventWords, sentWords } from '../src/components/simulator/words.js';
import { realRoot } from './fixture.js';

const windowOfPid = (sim: Sandbox, pid = sim.pid) => windowOf(sim.broker.state.get(toProducerId(pid)));

describe("the chapter's scenario in the sandbox", () => {
  const sim = new Sandbox();
  const say = (event: Parameters<typeof eventWords>[0] | undefined) => (event ? eventWords(event) : '');
  const indexOf = (range: string) => sim.sent.findIndex((b) => `${b.firstSeq}..${b.lastSeq}` === range);

  it('fills the window with the chapter batches; the ack of 7..9 is lost', () => {
    for (let i = 0; i < 4; i++) expect(say(sim.send('answered'))).toMatch(/→ APPEND/);
    expect(say(sim.send('ack-lost'))).toBe(
      'pid 1000 ส่ง 7..9 → APPEND · offset 7..9 · ack หายกลางทาง producer ยังไม่รู้ผล',
    );
    expect(windowOfPid(sim)).toEqual(['0..1', '2..3', '4..5', '6..6', '7..9']);
    expect(sim.broker.logEndOffset).toBe(10);
    expect(sim.waiting).toBe(1);
  });

  it('the resend of 7..9 is a DUPLICATE with the original offsets; nothing is written', () => {
    expect(say(sim.resend(indexOf('7..9')))).toBe('pid 1000 ส่ง 7..9 ซ้ำ → DUPLICATE · offset เดิม 7..9');
    expect(sim.broker.logEndOffset).toBe(10);
    expect(sim.waiting).toBe(0);
  });

  it('a lost request leaves a gap: the next batch is OUT_OF_ORDER', () => {
    expect(say(sim.send('request-lost'))).toBe('pid 1000 ส่ง 10..10 · request หายก่อนถึง broker');
    expect(say(sim.send('answered'))).toBe('pid 1000 ส่ง 11..11 → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 10 ได้ 11');
    expect(sim.broker.logEndOffset).toBe(10);
    expect(say(sim.resend(indexOf('10..10')))).toMatch(/→ APPEND · offset 10\.\.10 · 0\.\.1 หลุดจากหน้าต่าง$/);
    expect(say(sim.resend(indexOf('11..11')))).toMatch(/→ APPEND · offset 11\.\.11 · 2\.\.3 หลุดจากหน้าต่าง$/);
  });

  it("overflow: once 7..9 has left the window its resend is refused (the demo's 15 and 7)", () => {
    for (let i = 0; i < 3; i++) sim.send('answered');
    expect(windowOfPid(sim)).toEqual(['10..10', '11..11', '12..12', '13..13', '14..14']);
    expect(say(sim.resend(indexOf('7..9')))).toBe(
      'pid 1000 ส่ง 7..9 ซ้ำ → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 15 ได้ 7',
    );
  });

  // Guided step 6: the producer hears that 7..9 failed, yet the log holds it at 7..9 since the first send.
  it("the refused 7..9 is labelled as on the log, where the log holds it, and keeps the row's history", () => {
    const logged = sim.broker.log.find((b) => b.pid === sim.pid && b.firstSeq === 7 && b.lastSeq === 9);
    expect(logged).toMatchObject({ firstOffset: 7, lastOffset: 9 });
    expect(sentWords(sim.sent[indexOf('7..9')]!)).toBe(
      'ack หาย → DUPLICATE · offset เดิม 7..9 → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 15 ได้ 7' +
        ' · ถูกปฏิเสธ แต่อยู่บน log แล้วที่ offset 7..9',
    );
  });

  it('a restart with everything in the active segment rebuilds the same window', () => {
    expect(say(sim.restart())).toBe(
      'restart broker · สร้างหน้าต่างจาก segment ที่ active: pid 1000 [10..10 11..11 12..12 13..13 14..14]',
    );
    expect(say(sim.resend(indexOf('14..14')))).toBe('pid 1000 ส่ง 14..14 ซ้ำ → DUPLICATE · offset เดิม 14..14');
  });

  it('a new session is a new producer: same records, new id, written again', () => {
    expect(say(sim.newSession())).toBe('process ใหม่ได้ pid 1001 นับ seq จาก 0');
    expect(say(sim.send('answered'))).toBe('pid 1001 ส่ง 0..1 → APPEND · offset 15..16');
  });

  it('roll then restart: the rebuild sees the active segment only', () => {
    expect(say(sim.roll())).toBe('roll segment · segment ใหม่เริ่มที่ offset 17');
    expect(sim.roll()).toBeUndefined(); // nothing in the new segment yet
    sim.send('answered');
    // The narrowing is said: pid 1001 had two batches in its window, the active segment holds one.
    expect(say(sim.restart())).toBe(
      'restart broker · สร้างหน้าต่างจาก segment ที่ active: pid 1001 [2..3] (จาก 2 เหลือ 1)',
    );
    expect(windowOfPid(sim, 1000)).toEqual([]);
    // pid 1001's 0..1 went with the old segment: its resend is no longer recognised.
    expect(say(sim.resend(indexOf('0..1')))).toBe(
      'pid 1001 ส่ง 0..1 ซ้ำ → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 4 ได้ 0',
    );
  });
});

describe("the chapter's gap and narrowing", () => {
  it("a hand-made batch at 13 while 10 is due is refused, writes nothing, and is not the producer's own", () => {
    const sim = new Sandbox();
    for (let i = 0; i < 5; i++) sim.send('answered');
    expect(eventWords(sim.probe(13))).toBe(
      'pid 1000 ส่ง 13..13 ที่ประกอบเอง → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 10 ได้ 13',
    );
    expect(sim.broker.logEndOffset).toBe(10);
    expect(sim.sent).toHaveLength(5);
    expect(sim.nextRange()).toEqual({ firstSeq: 10, lastSeq: 10 });
    // The sequence that is due is written like any other.
    expect(eventWords(sim.probe(10))).toBe('pid 1000 ส่ง 10..10 ที่ประกอบเอง → APPEND · offset 10..10');
  });

  it('a refused batch still needs a resend; an answered one does not', () => {
    const sim = new Sandbox();
    sim.send('answered');
    sim.send('request-lost');
    sim.send('answered'); // 3..3 refused: 2..3 never came
    expect(sim.sent.map((b) => sim.needsResend(b))).toEqual([false, true, true]);
  });

  it('segment.bytes = 256 rolls before every batch that follows another: restart keeps one (5 → 1)', () => {
    const sim = new Sandbox();
    sim.segmentBytes = 256;
    for (let i = 0; i < 8; i++) sim.send('answered');
    expect(sim.broker.log.map((b) => b.segment)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(windowOfPid(sim)).toHaveLength(5);
    expect(eventWords(sim.restart())).toBe(
      'restart broker · สร้างหน้าต่างจาก segment ที่ active: pid 1000 [12..12] (จาก 5 เหลือ 1)',
    );
  });
});

describe('the in-flight cap', () => {
  it('at 5 the sixth new batch must wait; at 6 it goes, and 0..1 leaves the window unanswered', () => {
    const sim = new Sandbox();
    for (let i = 0; i < 5; i++) sim.send('ack-lost');
    expect(sim.canSendNext()).toBe(false);
    expect(() => sim.send('answered')).toThrow(/5 batches are waiting/);
    sim.inFlightCap = 6;
    expect(eventWords(sim.send('ack-lost'))).toMatch(/APPEND · offset 10\.\.10 · 0\.\.1 หลุดจากหน้าต่าง/);
    expect(eventWords(sim.resend(0))).toBe('pid 1000 ส่ง 0..1 ซ้ำ → OUT_OF_ORDER_SEQUENCE_NUMBER · รอ 11 ได้ 0');
  });

  it('a new session abandons what the old one still waited for, and says so', () => {
    const sim = new Sandbox();
    sim.send('ack-lost');
    sim.send('request-lost');
    expect(eventWords(sim.newSession())).toBe(
      'process ใหม่ได้ pid 1001 นับ seq จาก 0 · ที่ pid 1000 ยังรอคำตอบอีก 2 batch ไม่มีใครส่งซ้ำแล้ว',
    );
  });
});

describe("the replay of the checker's counterexample", () => {
  it('is the run of klog model-check --in-flight 6, step for step', () => {
    const golden = readFileSync(join(realRoot, 'expected/07-model-6.txt'), 'utf8');
    const steps = [...golden.matchAll(/^ *(\d+) {2}(\S+) +(.+)$/gm)].map((m) => [Number(m[1]), m[2], m[3]]);
    const replay = counterexampleReplay(6);
    expect(replay.frames.map((f) => [f.step, f.actor, f.text])).toEqual(steps);
    expect(golden).toContain(replay.violation);
    expect(golden).toContain(replay.cause!);
    for (const client of replay.clients) {
      expect(golden).toContain(client.name);
      for (const line of client.lines) expect(golden).toContain(line);
    }
  });

  it('shows the wire and the window as they change', () => {
    const { frames } = counterexampleReplay(6);
    expect(frames[5]).toMatchObject({ requests: '0..1 2..3 4..5 6..6 7..9 10..10', acks: '—', window: '[]' });
    expect(frames[11]).toMatchObject({
      requests: '—',
      window: '[2..3 4..5 6..6 7..9 10..10]',
      logEndOffset: 11,
    });
    expect(frames[11]!.acks).toBe(
      '0..1 APPEND · 2..3 APPEND · 4..5 APPEND · 6..6 APPEND · 7..9 APPEND · 10..10 APPEND',
    );
    expect(frames[12]).toMatchObject({ acks: '—' });
    expect(frames[15]!.producer[0]).toEqual({
      range: '0..1',
      status: 'ล้มเหลว · OUT_OF_ORDER_SEQUENCE_NUMBER',
    });
  });
});
