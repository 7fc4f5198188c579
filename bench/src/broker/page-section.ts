import { renderCpuChart } from './cpu-chart.js';
import { cpuFloorOf, FLOOR_RATIO_GOAL, floorGoalLabel, isRetiredMockCpuGoal } from './cpu-floor.js';
import { OTHER_THREADS, OUTSIDE_JS } from './cpu-profile.js';
import type { BrokerBenchResults, Goal, GroupConsumeResult, Run, WorkloadResult } from './results.js';
import { IDLE_RSS_RATIO_GOAL, PUBLISHED_FOOTPRINTS, STARTUP_RATIO_GOAL } from './startup-bench.js';

/**
 * The broker section of docs/performance.mdx, from bench/broker-results.json alone: klog serve against
 * librdkafka's mock cluster (the same kcat, the same messages) and against loopback sockets.
 */

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/[{}<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const sep = header.map((_, i) => (i === 0 ? '---' : '---:'));
  return [header, sep, ...rows].map((r) => `| ${r.map(cell).join(' | ')} |`).join('\n');
}

function mean(runs: readonly Run[], f: (r: Run) => number): number {
  return runs.reduce((s, r) => s + f(r), 0) / runs.length;
}

const mbps = (runs: readonly Run[]) => `${mean(runs, (r) => r.mbPerSec).toFixed(1)} MB/s`;
const ratio = (x: number) => `${x.toFixed(2)}×`;
const percent = (x: number) => `${Math.round(x * 100)} %`;
const cpuMs = (runs: readonly Run[]) => `${(mean(runs, (r) => r.cpuSecondsPerMb ?? 0) * 1000).toFixed(1)} ms`;

/** Met or not: against the run's own goal labelled `label` when it has goals, else the produce target. */
function goal(b: BrokerBenchResults, x: number, label: string): string {
  const bound = b.goals?.find((g) => g.label === label)?.bound ?? b.target.min;
  return x >= bound ? 'ถึงเป้า' : 'ไม่ถึงเป้า';
}

/** The rows under the goal, named, so a miss is read as plainly as a pass. */
function missed(b: BrokerBenchResults): string[] {
  const rows = b.workloads.flatMap((w) => [
    ...(w.produce.ratio < b.target.min ? [`produce ${w.label} (${ratio(w.produce.ratio)})`] : []),
    ...(w.fetch.ratio < b.target.min ? [`fetch ${w.label} (${ratio(w.fetch.ratio)})`] : []),
  ]);
  return rows.length === 0 ? [] : [`ไม่ถึงเป้า ${b.target.min}×: ${rows.join(', ')}`, ''];
}

/**
 * Every goal against its figure; results written before issue 25 have none. Issue 25's CPU goal (≤ 3× the
 * mock's) is retired: results that still hold it show it no more, and the page says what replaced it.
 */
function goalsSection(all: readonly Goal[] | undefined): string[] {
  if (all === undefined) return [];
  const goals = all.filter((g) => !isRetiredMockCpuGoal(g.label));
  const retired = goals.length < all.length;
  const value = (g: Goal, x: number) => (g.unit === 'KiB' ? `${x.toFixed(1)} KiB` : ratio(x));
  // A figure that rounds onto its bound shows the digit that decides it (0.998× against ≥ 1.00×).
  const figure = (g: Goal) =>
    value(g, g.value) !== value(g, g.bound) || g.value === g.bound
      ? value(g, g.value)
      : g.unit === 'KiB'
        ? `${g.value.toFixed(2)} KiB`
        : `${g.value.toFixed(3)}×`;
  return [
    '### เป้า',
    '',
    table(
      ['เป้า', 'วัดได้', 'ขอบ', ''],
      goals.map((g) => [
        g.label,
        figure(g),
        `${g.direction === 'atLeast' ? '≥' : '≤'} ${value(g, g.bound)}`,
        g.met ? 'ถึงเป้า' : 'ไม่ถึงเป้า',
      ]),
    ),
    '',
    ...(retired
      ? [
          `เป้าเดิมของ CPU ต่อ MB (klog ≤ 3× ของ mock) ถูกแทนด้วยเป้าของ issue 44: klog ≤ ${FLOOR_RATIO_GOAL}× ของ floor (kernel floor + CRC-32C วัดในรอบเดียวกัน)` +
            ' ผลชุดนี้วัดก่อนที่ bench จะวัด CRC-32C จึงยังไม่มีแถวของเป้าใหม่ ตัวเลข klog ÷ mock ยังอยู่ในตาราง CPU ข้างล่าง',
          '',
        ]
      : []),
  ];
}

/** Where klog's produce CPU goes, per workload: a chart and its figures; absent in older results. */
function breakdownSection(b: BrokerBenchResults): string[] {
  const profiled = b.workloads.filter((x) => x.profile !== undefined);
  if (profiled.length === 0) return [];
  const bound = (x: WorkloadResult) =>
    b.goals?.find((g) => g.label === floorGoalLabel(x.label))?.bound ?? FLOOR_RATIO_GOAL;
  const out = [
    '### CPU ต่อ MB ไปที่ไหน',
    '',
    'produce อีกรอบหนึ่งของแต่ละงาน โดย `klog serve` รันใต้ `node --cpu-prof` (file `.cpuprofile` อยู่ใน `bench/profiles/`' +
      ' เปิดด้วย DevTools ของ Chrome ได้) นับ sample ของ main thread เฉพาะช่วงที่ kcat กำลังส่ง แยกตามส่วนของทาง produce' +
      ' (code native เช่น syscall นับเข้าส่วนของ JavaScript ที่เรียกมัน)' +
      (profiled.some((x) => x.profile!.profiledMainThreadMsPerMb !== undefined)
        ? ' V8 นับช่วง poll ของ libuv เป็น idle รวมทั้ง read(2) ของ socket ที่ทำในช่วงนั้น sample จึงเห็น CPU ของ main thread ไม่หมด:' +
          ` ส่วนที่ sample เห็นได้ CPU ของ main thread ตามสัดส่วน ส่วนที่ไม่เห็นนับเข้า "${OUTSIDE_JS}"` +
          ` และ CPU ของ thread อื่น (GC helper, compiler) เป็นส่วน "${OTHER_THREADS}" ทุกส่วนรวมกันเท่ากับ CPU ต่อ MB ของรอบที่ไม่ได้ profile` +
          ' sample ของ V8 นับตามเวลาจริง ไม่ใช่เวลา CPU: main thread ที่ถูกสลับออกกลาง syscall' +
          ' (เช่น เขียน response แล้ว kcat ตื่นขึ้นมาใช้ core นั้น) ก็ถูกนับเข้าส่วนของ syscall นั้น' +
          ' ส่วนที่เป็น syscall อย่าง "response write" และ "segment write (page cache)" จึงอาจดูใหญ่กว่าที่ใช้ CPU จริง'
        : ' แล้วคูณสัดส่วนเข้ากับ CPU ต่อ MB ของรอบที่ไม่ได้ profile'),
    '',
  ];
  for (const x of profiled) {
    const mock = mean(x.produce.baseline, (r) => r.cpuSecondsPerMb ?? 0) * 1000;
    const floor = cpuFloorOf(x);
    const chart = renderCpuChart(
      x,
      mock,
      floor === undefined ? undefined : { floorMsPerMb: floor.floorMsPerMb, bound: bound(x) },
    );
    if (chart !== undefined) out.push(chart, '');
  }
  out.push(
    table(
      ['ส่วน', ...profiled.map((x) => x.label)],
      profiled[0]!.profile!.parts.map((part, i) => [
        part.part,
        ...profiled.map((x) => {
          const r = x.profile!.parts[i]!;
          return `${r.msPerMb.toFixed(2)} ms (${percent(r.fraction)})`;
        }),
      ]),
    ),
    '',
  );
  return out;
}

/** Consuming through a consumer group; results written before consumer groups have none. */
function groupSection(g: GroupConsumeResult | undefined): string[] {
  if (g === undefined) return [];
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return [
    '### อ่านผ่าน consumer group (`kcat -G`)',
    '',
    `kcat ในโหมด balanced consumer (\`-G\`) เข้า group แล้วอ่านตั้งแต่ต้น (\`auto.offset.reset=earliest\`) จาก topic ${g.partitions} partition` +
      ' เวลาถึง message แรกนับจากตอนเริ่ม kcat (ซึ่งเข้า group ทันที) ทั้งสองฝั่งรอ rebalance ครั้งแรกตามกติกาเดียวกัน' +
      ' (`group.initial.rebalance.delay.ms` ค่าปริยายของ Kafka 3000 ms ซึ่ง mock ก็ใช้):',
    '',
    table(
      ['งาน', 'klog', 'mock', 'ratio', 'ถึง message แรก klog', 'ถึง message แรก mock'],
      [
        [
          `${g.window.messages.toLocaleString('en')} × ${g.messageBytes} B`,
          mbps(g.window.klog),
          mbps(g.window.baseline),
          ratio(g.window.ratio),
          ms(g.firstMessageMs.klog),
          ms(g.firstMessageMs.mock),
        ],
        ...(g.afterJoin === undefined
          ? []
          : [
              [
                `${g.window.messages.toLocaleString('en')} × ${g.messageBytes} B หลังเข้า group`,
                mbps(g.afterJoin.klog),
                mbps(g.afterJoin.baseline),
                ratio(g.afterJoin.ratio),
                '—',
                '—',
              ],
            ]),
        ...(g.consumerProtocol === undefined
          ? []
          : [
              ...(g.consumerProtocol.classicOnSameClient === undefined
                ? []
                : [
                    [
                      `${g.window.messages.toLocaleString('en')} × ${g.messageBytes} B, librdkafka 2.15.1, classic`,
                      mbps(g.consumerProtocol.classicOnSameClient.window),
                      '—',
                      '—',
                      ms(g.consumerProtocol.classicOnSameClient.firstMessageMs),
                      '—',
                    ],
                  ]),
              [
                `${g.window.messages.toLocaleString('en')} × ${g.messageBytes} B, librdkafka 2.15.1, \`group.protocol=consumer\` (KIP-848)`,
                mbps(g.consumerProtocol.window),
                '—',
                '—',
                ms(g.consumerProtocol.firstMessageMs),
                '—',
              ],
            ]),
        [g.label, mbps(g.all), '—', '—', ms(g.allFirstMessageMs), '—'],
      ],
    ),
    '',
    ...(g.consumerProtocol === undefined
      ? []
      : [
          'สองแถว librdkafka 2.15.1 อ่านชุดเดียวกันจาก klog ด้วย kcat ตัวเดียวกันบน librdkafka 2.15.1 สลับกันไปมาทุกรอบ' +
            ' แถวหนึ่งใช้ protocol classic อีกแถวตั้ง `group.protocol=consumer` (KIP-848): member เข้า group ด้วย' +
            ' ConsumerGroupHeartbeat แล้ว broker เป็นผู้แบ่ง partition ให้ทันที ไม่มีช่วงรอ `group.initial.rebalance.delay.ms`' +
            ' ผลต่างของเวลาถึง message แรกจึงมาจาก protocol ไม่ใช่จากรุ่นของ client (mock ของ librdkafka 2.0.2 ยังไม่รู้จัก protocol นี้ จึงวัดเฉพาะ klog)',
          '',
        ]),
    ...(g.afterJoin === undefined
      ? []
      : ['แถว "หลังเข้า group" นับเวลาจาก message แรกถึงตัวสุดท้าย ตัดช่วงรอ rebalance ออก เหลือแต่การอ่านล้วน ๆ', '']),
    'แถวล่างอ่านทุก message จาก klog เท่านั้น เพราะ mock เก็บไว้ราว 5 MB ต่อ partition',
    '',
  ];
}

export function renderBrokerSection(b: BrokerBenchResults): string[] {
  const w: readonly WorkloadResult[] = b.workloads;
  const kernelFloor = w.some((x) => x.kernelFloor !== undefined);
  return [
    '## broker: `klog serve` กับ mock cluster ของ librdkafka',
    '',
    `ผลของ \`pnpm bench:broker\` (${b.quick ? 'แบบสั้น' : 'แบบเต็ม'}, ${b.rounds} รอบ, ${b.durationSeconds} s, ` +
      `${b.date.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}): client ตัวเดียวกันคือ kcat ${b.tools.kcat} (librdkafka ${b.tools.librdkafka})` +
      ' ส่งแบบ idempotent (`enable.idempotence=true`, `acks=all`) แล้วอ่านกลับ ฝั่งหนึ่งคือ `klog serve` อีกฝั่งคือ' +
      ' mock cluster ที่อยู่ใน librdkafka เอง (`test.mock.num.brokers=1`: broker ในหน่วยความจำ เขียนด้วย C ไม่เขียนลง disk' +
      ' และไม่ dedup) ทั้งคู่เป็น process แยกที่ kcat ต่อผ่าน loopback เหมือนกัน สลับกันว่าใครวัดก่อนทุกรอบ ratio คือ median ของรอบ',
    '',
    table(
      [
        'งาน',
        'produce klog',
        'produce mock',
        'ratio',
        'fetch klog',
        'fetch mock',
        'ratio',
        b.goals === undefined ? `เป้า ≥ ${b.target.min}×` : 'เป้า (ดูตารางเป้า)',
      ],
      w.map((x) => [
        x.label,
        mbps(x.produce.klog),
        mbps(x.produce.baseline),
        ratio(x.produce.ratio),
        mbps(x.fetch.klog),
        mbps(x.fetch.baseline),
        ratio(x.fetch.ratio),
        `${goal(b, x.produce.ratio, `produce ${x.label} / mock`)} / ${goal(b, x.fetch.ratio, `fetch ${x.label} / mock`)}`,
      ]),
    ),
    '',
    ...missed(b),
    ...goalsSection(b.goals),
    'MB/s คือ payload (ค่าของ message) ล้าน byte ต่อวินาที วัดจากเวลาทั้ง process ของ kcat' +
      ' ฝั่ง fetch อ่าน topic 4 partition ที่มีข้อมูลเท่ากันทั้งสองฝั่ง' +
      ` (${w.map((x) => `${x.fetch.messages.toLocaleString('en')} message ใน ${x.label}`).join(', ')})` +
      ' เพราะ mock เก็บไว้เพียงราว 5 MB ต่อ partition แล้วทิ้งของเก่า จึงอ่านกลับทั้งล้าน message จาก mock ไม่ได้' +
      fetchReads(w) +
      warmUp(w),
    '',
    ...groupSection(b.groupConsume),
    '### เทียบกับขีดจำกัด: socket loopback',
    '',
    'ขีดจำกัดคือการย้าย byte จำนวนเท่ากัน (ทุก message บวก newline) ผ่าน TCP loopback จาก process หนึ่งไปอีก process ที่ทิ้งข้อมูลทันที' +
      ' ส่วนการอ่านกลับ kcat อ่านทุก message ที่ส่งไปจาก klog แล้วพิมพ์ทีละบรรทัด ซึ่งเป็นงานฝั่ง client เป็นส่วนใหญ่' +
      ' (ดู ratio ของ fetch กับ mock ข้างบน: client ตัวเดียวกัน อ่านข้อมูลชุดเดียวกัน):',
    '',
    table(
      ['งาน', 'produce klog', 'loopback', 'สัดส่วน', 'อ่านกลับ klog', 'สัดส่วน'],
      w.map((x) => [
        x.label,
        mbps(x.produce.klog),
        mbps(x.produceVsLoopback.baseline),
        percent(x.produceVsLoopback.ratio),
        mbps(x.readBackVsLoopback.klog),
        percent(x.readBackVsLoopback.ratio),
      ]),
    ),
    '',
    '### CPU ต่อ MB ที่ produce',
    '',
    'เวลา CPU ของทุก thread ใน process ฝั่ง broker (จาก `/proc/<pid>/task/*/schedstat` ละเอียดระดับ ns) ระหว่างที่ kcat produce หารด้วย payload MB' +
      (w.some((x) => x.kernelFloor !== undefined)
        ? ' คอลัมน์ "kernel floor" คือ process ที่อ่าน byte ชุดเดียวกันจาก socket เข้า buffer 1 MiB ที่ใช้ซ้ำ แล้วเขียนทุกครั้งที่อ่านลง file' +
          ' บน file system เดียวกับ data ของ klog (Python, `bench/python/file_floor.py`) ไม่มี protocol ไม่ตรวจอะไร' +
          ' CPU ของมันแทบทั้งหมดเป็นของ kernel (รับ TCP แล้วเขียนลง page cache) ซึ่ง broker ใดก็ตามที่เก็บ log เป็น file ต้องจ่าย' +
          ' ส่วน mock เก็บไว้ใน memory ไม่เขียนลง disk เลย คอลัมน์ "ใน kernel" คือส่วนของ CPU ของ klog ที่อยู่ใน kernel' +
          ' (stime จาก `/proc/<pid>/stat` นับทีละ 10 ms จึงหยาบ)' +
          (w.some((x) => x.crc32cFloor !== undefined)
            ? ' คอลัมน์ "CRC-32C" คือเวลา CPU ของ CRC-32C ของ klog เอง (`computeBatchCrc` ตัวเดียวกับที่ storage ใช้ตรวจทุก batch ที่ produce เข้ามา)' +
              ' คำนวณบน record batch ชุดเดียวกับที่ kcat ส่งในรอบนั้น (อ่านกลับจาก segment ของ klog ขนาดแต่ละ batch จึงตรงกับที่ librdkafka รวมมา)' +
              ' วนซ้ำจน process ของ bench ใช้ CPU เกิน 0.2 s (`process.cpuUsage`) แล้วหารด้วย payload MB' +
              ' คอลัมน์ "floor" คือ kernel floor บวก CRC-32C: สิ่งที่ broker ใดก็ตามที่เก็บ log เป็น file และตรวจ CRC ของทุก batch อย่าง Kafka ต้องจ่าย' +
              ` ทุกคอลัมน์เป็นค่าเฉลี่ยของทุกรอบ เป้าของ issue 44 คือ klog ÷ floor ≤ ${FLOOR_RATIO_GOAL}× ซึ่งแทนเป้าเดิม klog ≤ 3× ของ mock` +
              ' (mock เป็น broker ใน memory ที่ไม่เขียนลง disk จึงไม่ใช่ขั้นต่ำของ broker ที่เก็บ file):'
            : ` ผลชุดนี้วัดก่อนที่ bench จะวัด CRC-32C คอลัมน์ "CRC-32C", "floor" และ "klog ÷ floor" (เป้าของ issue 44 ≤ ${FLOOR_RATIO_GOAL}× ที่แทนเป้าเดิม ≤ 3× ของ mock) จึงยังว่าง:`)
        : w.some((x) => x.fileFloor !== undefined)
          ? ' คอลัมน์ "socket → file" คือ process ของ Node ที่ทำแค่อ่าน byte ชุดเดียวกันจาก socket แล้ว `writeSync` ลง file' +
            ' ไม่มี protocol ไม่ตรวจอะไร: broker ใน Node ที่เก็บ file แบบ Kafka ใช้ CPU น้อยกว่านี้ไม่ได้' +
            ' ส่วน mock ไม่เขียนลง disk เลย:'
          : ':'),
    '',
    table(
      [
        'งาน',
        'klog',
        ...(kernelFloor ? ['ใน kernel'] : []),
        // With the floor's four columns the table must still fit 1280 px: short headers, no klog ÷ mock
        // (the mock is no longer the CPU goal's measure; its own column stays).
        kernelFloor ? 'mock' : 'mock (librdkafka, C)',
        ...(kernelFloor ? [] : ['klog ÷ mock']),
        ...(kernelFloor
          ? ['kernel floor', 'CRC-32C', 'floor', `÷ floor (เป้า ≤ ${FLOOR_RATIO_GOAL}×)`]
          : w.some((x) => x.fileFloor !== undefined)
            ? ['socket → file (Node)', 'klog ÷ socket → file']
            : []),
      ],
      w.map((x) => {
        const k = mean(x.produce.klog, (r) => r.cpuSecondsPerMb ?? 0);
        const m = mean(x.produce.baseline, (r) => r.cpuSecondsPerMb ?? 0);
        if (kernelFloor) {
          // Two places: CRC-32C is a few hundredths of a ms per MB, which one place would show as 0.0.
          const ms2 = (x: number | undefined) => (x === undefined ? '—' : `${x.toFixed(2)} ms`);
          const floor = cpuFloorOf(x);
          return [
            x.label,
            ms2(k * 1000),
            ms2(mean(x.produce.klog, (r) => r.kernelCpuSecondsPerMb ?? 0) * 1000),
            ms2(m * 1000),
            ms2(
              x.kernelFloor === undefined
                ? undefined
                : mean(x.kernelFloor, (r) => r.cpuSecondsPerMb ?? 0) * 1000,
            ),
            ms2(floor?.crcMsPerMb),
            ms2(floor?.floorMsPerMb),
            floor === undefined
              ? '—'
              : `${ratio(floor.ratio)} ${floor.ratio <= FLOOR_RATIO_GOAL ? 'ถึงเป้า' : 'ไม่ถึงเป้า'}`,
          ];
        }
        const row = [x.label, cpuMs(x.produce.klog), cpuMs(x.produce.baseline), m > 0 ? ratio(k / m) : '—'];
        if (!w.some((y) => y.fileFloor !== undefined)) return row;
        if (x.fileFloor === undefined) return [...row, '—', '—'];
        const f = mean(x.fileFloor, (r) => r.cpuSecondsPerMb ?? 0);
        return [...row, cpuMs(x.fileFloor), f > 0 ? ratio(k / f) : '—'];
      }),
    ),
    '',
    ...(w.some((x) => x.rssUnderLoadBytes !== undefined)
      ? [
          `RSS สูงสุดของ \`klog serve\` ระหว่าง produce (อ่านทุก 50 ms): ${w
            .filter((x) => x.rssUnderLoadBytes !== undefined)
            .map((x) => `${x.label} ${(x.rssUnderLoadBytes! / 2 ** 20).toFixed(0)} MiB`)
            .join(', ')}`,
          '',
        ]
      : []),
    ...breakdownSection(b),
    '### หน่วยความจำกับ connection ที่ไม่ทำอะไร',
    '',
    ...idleSection(b.idle),
    '',
    ...startupSection(b),
  ];
}

/** The idle connections: klog's per connection, and (settled results) a Node process's beside it. */
function idleSection(idle: BrokerBenchResults['idle']): string[] {
  const kib = (x: number) => `${(x / 1024).toFixed(1)} KiB`;
  const rounds = (xs: readonly number[]) => xs.map(kib).join(', ');
  if (idle.measure !== 'settled') {
    return [
      table(
        ['', ''],
        [
          ['connection', idle.connections.toLocaleString('en')],
          ['RSS ก่อน', `${(idle.rssBeforeBytes / 2 ** 20).toFixed(1)} MiB`],
          ['RSS หลัง', `${(idle.rssAfterBytes / 2 ** 20).toFixed(1)} MiB`],
          ['ต่อ connection', kib(idle.bytesPerConnection)],
          ...(idle.roundBytesPerConnection !== undefined
            ? [['แต่ละรอบ', rounds(idle.roundBytesPerConnection)]]
            : []),
        ],
      ),
      '',
      'แต่ละ connection ถาม ApiVersions หนึ่งครั้งแล้วเงียบ วัด RSS ของ process `klog serve` ก่อนเปิดและหลังเปิดครบ',
      ...(idle.roundBytesPerConnection !== undefined
        ? [
            'เริ่ม `klog serve` ใหม่ทุกรอบแล้วรายงานค่ากลาง เพราะ RSS รวมขนาด heap ที่ V8 เลือกขยายเองด้วย (young generation โตเป็นขั้น) ตัวเลขรอบเดียวจึงแกว่ง',
          ]
        : []),
    ];
  }
  return [
    table(
      ['', '`klog serve`', 'Node ที่รับและตอบอย่างเดียว', 'klog ÷ Node'],
      [
        [
          'ต่อ connection (ค่ากลาง)',
          kib(idle.bytesPerConnection),
          kib(idle.nodeBytesPerConnection),
          ratio(idle.bytesPerConnection / idle.nodeBytesPerConnection),
        ],
        ['แต่ละรอบ', rounds(idle.roundBytesPerConnection), rounds(idle.roundNodeBytesPerConnection), ''],
        [
          'RSS ก่อน → หลัง (รอบค่ากลาง)',
          `${(idle.rssBeforeBytes / 2 ** 20).toFixed(1)} → ${(idle.rssAfterBytes / 2 ** 20).toFixed(1)} MiB`,
          '',
          '',
        ],
      ],
    ),
    '',
    `แต่ละ connection ถาม ApiVersions หนึ่งครั้งแล้วเงียบ เปิด connection แรกแล้ววัด RSS เมื่อ process หยุดเปลี่ยน (ทุกค่าที่อ่านใน 8 s ล่าสุดห่างกันไม่เกิน 64 KiB และผ่านไปแล้วอย่างน้อย 12 s) จากนั้นเปิดอีก ${(idle.connections - 1).toLocaleString('en')} connection แล้ววัดแบบเดียวกันอีกครั้ง ต่อ connection คือผลต่างหารด้วย ${(idle.connections - 1).toLocaleString('en')}`,
    'ช่วงแรกหลังเปิดรวด RSS ยังรวม young generation ที่ V8 เพิ่งขยายและขยะที่ยังไม่เก็บ ซึ่ง process ที่ว่างคืนภายในไม่กี่วินาที',
    'ฝั่ง Node เป็น process ที่รับ connection แล้วตอบทุก request ด้วย frame เดียวกันตลอด วัดสลับกับ `klog serve` ในรอบเดียวกัน จึงเห็นว่าส่วนไหนเป็นของ socket ของ Node เอง',
    'วัดบน bundle ที่คำสั่ง `klog` รันจริง เป้า 10 KiB ของ issue 44 ตั้งไว้ตอนที่ยังวัด 0.5 s หลังเปิดครบบน `dist/bin.js` ตอนนี้ตัดสินด้วยค่าที่วัดแบบนี้',
    ...(idle.unsettledReadings > 0
      ? [`มี ${idle.unsettledReadings} ค่าที่อ่านตอนรอครบ 45 s แล้ว process ยังไม่หยุดเปลี่ยน`]
      : []),
  ];
}

/** Start-up and idle memory: klog's and Node's as measured in the run, other brokers' as they published them. */
function startupSection(b: BrokerBenchResults): string[] {
  const s = b.startup;
  const mib = (x: number) => `${x.toFixed(1)} MiB`;
  const measured: string[][] =
    s === undefined
      ? [['`klog serve`', 'ยังไม่มีในผลชุดนี้', 'ยังไม่มีในผลชุดนี้', 'วัดที่นี่ด้วย `pnpm bench:broker`']]
      : [
          [
            '`klog serve`',
            `${s.klogMs.toFixed(0)} ms (${(s.klogMs / s.nodeMs).toFixed(2)}× ของ \`node -e 0\`, เป้า ≤ ${STARTUP_RATIO_GOAL}×)`,
            `${mib(s.klogIdleRssMiB)} (${(s.klogIdleRssMiB / s.nodeListenRssMiB).toFixed(2)}× ของ Node ที่ listen อย่างเดียว, เป้า ≤ ${IDLE_RSS_RATIO_GOAL}×)`,
            `วัดที่นี่ ค่ากลางของ ${s.rounds} รอบ`,
          ],
          [
            'Node.js เปล่า ๆ',
            `${s.nodeMs.toFixed(0)} ms (\`node -e 0\` จนจบ)`,
            `${mib(s.nodeListenRssMiB)} (process ที่เปิด port รออย่างเดียว)`,
            'วัดที่นี่ ในรอบเดียวกัน',
          ],
        ];
  return [
    '### เริ่มทำงานเร็วแค่ไหน และกินหน่วยความจำเท่าไรตอนว่าง',
    '',
    table(
      ['broker', 'เวลาเริ่ม', 'หน่วยความจำ', 'ที่มา'],
      [
        ...measured,
        ...PUBLISHED_FOOTPRINTS.map((p) => [
          `${p.name} (ตัวเลขของเขา)`,
          p.startup,
          p.memory,
          `ประกาศไว้ใน [${p.source.title}](${p.source.url}) ไม่ได้วัดที่นี่`,
        ]),
      ],
    ),
    '',
    s === undefined
      ? 'ผลชุดนี้วัดก่อนที่ `pnpm bench:broker` จะเก็บเวลาเริ่มไว้ แถวของ klog จะมาพร้อมการวัดเต็มรอบครั้งถัดไป'
      : 'สองแถวแรกวัดบนเครื่องข้างบนในรอบเดียวกับตัวเลขอื่นของหน้านี้: เวลาของ `klog serve` นับตั้งแต่สั่ง spawn จนได้คำตอบ ApiVersions ครั้งแรก' +
        ' ส่วน RSS อ่านตอนนั้นเลย ก่อนมี client ใดส่งข้อมูล แต่ละรอบวัด Node ก่อนแล้วต่อด้วย klog ทันที สองฝั่งจึงเจอเครื่องที่ยุ่งเท่า ๆ กัน',
    'แถวที่เขียนว่า "ตัวเลขของเขา" ยกมาจากเอกสารของเจ้าของโครงการ วัดบนเครื่องของเขาด้วยวิธีของเขา (KIP-974 จับเวลาเริ่ม server และรายงานหน่วยความจำสูงสุด ไม่ใช่ RSS ตอนว่าง)' +
      ' จึงใช้ดูได้เพียงว่าอยู่ในหลักเดียวกันหรือไม่ ไม่ใช่ ratio ที่เทียบกันได้ตรง ๆ',
    '',
  ];
}

/** How many reads of the window each round timed (older results: one, and nothing is said). */
/** How each timed produce was preceded; nothing for older results, which timed a broker's first produce. */
function warmUp(w: readonly WorkloadResult[]): string {
  if (!w.some((x) => x.warmUpMessages !== undefined)) return '';
  return (
    ' ก่อน produce ที่จับเวลาทุกครั้ง ทั้งสองฝั่งรับ message ชุดแรกของงานเดียวกันลง topic อีกอันหนึ่งก่อน' +
    ` (${w.map((x) => `${(x.warmUpMessages ?? 0).toLocaleString('en')} message ใน ${x.label}`).join(', ')})` +
    ' ที่วัดจึงเป็น broker ที่ทำงานอยู่แล้ว ไม่ใช่ช่วงที่ V8 ยัง compile ทาง produce ของ klog'
  );
}

function fetchReads(w: readonly WorkloadResult[]): string {
  const reads = w[0]?.fetch.reads;
  if (reads === undefined || reads <= 1) return '';
  return (
    ` แต่ละรอบ kcat อ่านชุดนี้ ${reads} ครั้งต่อ broker ผลัดกันอ่านก่อนทีละครั้ง แล้วรวมเวลาทั้งหมดของแต่ละฝั่ง` +
    ' เพราะการอ่านครั้งเดียวจบใน 20–50 ms ซึ่งสั้นจนการเริ่ม process ของ kcat ที่ช้าไปครั้งเดียวกลบ ratio ได้'
  );
}
