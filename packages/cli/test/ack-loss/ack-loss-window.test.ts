import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { klog, root, SLOW_HANG_MS, SLOW_TEST_MS } from '../run-klog.js';

/**
 * `klog ack-loss-demo --window <file>`: the four real clients lose acks against brokers that judge with a
 * lab file. klog's own window, adapted to the lab (lab/reference.ts), must print the chapter's golden byte
 * for byte; the fixture that appends before it judges must show the duplicates it lets onto the log.
 */
const fixture = (path: string) => join(root, path);

describe('klog ack-loss-demo --window', () => {
  it(
    "with klog's own window prints the chapter's run, byte for byte",
    () => {
      const run = klog(
        ['ack-loss-demo', '--window', fixture('packages/cli/lab/reference.ts')],
        {},
        SLOW_HANG_MS,
        root,
      );
      expect(run.hung).toBe(false);
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(readFileSync(join(root, 'expected/07-ack-loss.txt'), 'utf8'));
    },
    SLOW_TEST_MS,
  );

  it(
    'with a window that appends before it judges, reports the duplicates each client gets on the log',
    () => {
      const file = fixture('packages/cli/test/lab-fixtures/appends-before-judging.ts');
      const run = klog(['ack-loss-demo', '--window', file], {}, SLOW_HANG_MS, root);
      expect(run.hung).toBe(false);
      expect(run.status).toBe(1);
      const lines = run.stdout.split('\n');
      const report = lines.indexOf(`== หน้าต่างของคุณกับ client จริง: ${file} ==`);
      expect(report).toBeGreaterThan(0);
      // Each client's lost acks came back as resends the window wrote again: two lost acks, two copies.
      const clients = lines.slice(report + 1).filter((l) => /^ {2}\S/.test(l));
      expect(clients.map((l) => l.replace(/:.*/, '').replace(/ \d.*$/, ''))).toEqual([
        '  kcat',
        '  confluent-kafka',
        '  kafkajs',
        '  @platformatic/kafka',
      ]);
      for (const l of clients) expect(l).toMatch(/: ซ้ำบน log 2 · หาย 0 · offset ที่ได้ยินถูก 5\/5$/);
      // The failed claims in Thai, as the lab's report: the rule, what it should be, what it was.
      expect(lines).toContain('    ไม่มีของซ้ำ: ควรเป็น 0 ได้จริง 2');
      const claims = lines.slice(report + 1).filter((l) => /^ {4}\S/.test(l));
      expect(claims.length).toBeGreaterThan(0);
      for (const l of claims) expect(l).toMatch(/^ {4}[^:]*[\u0e00-\u0e7f][^:]*: ควรเป็น .+ ได้จริง .+$/);
      expect(run.stderr).toMatch(
        new RegExp(
          `^klog: ack-loss-demo --window ${file.replace(/[.]/g, '\\.')}: เมื่อเปิด idempotence หน้าต่างของคุณทำให้ข้อที่ต้องเป็นจริงพังไป \\d+ ข้อ ใน client 4 ตัว และปล่อยของซ้ำลง log 8 record \\(รายการอยู่ข้างบน\\)\\n$`,
        ),
      );
    },
    SLOW_TEST_MS,
  );
});
