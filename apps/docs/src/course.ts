// The course this site belongs to: the chapters chapter 7 builds on and leads to, named as the
// course speaks of them. A chapter is linked only when a page of docs/ says `chapter: N`; the
// others are listed so a reader sees where this chapter stands, not as links to nowhere.
export interface CourseChapter {
  readonly chapter: number;
  readonly title: string;
  /** What chapter 7 takes from it, or hands on to it. */
  readonly role: string;
}

export const COURSE_TITLE = 'คอร์สไส้ในของ Kafka';

export const CHAPTERS: readonly CourseChapter[] = [
  { chapter: 1, title: 'หัว batch แบบ RecordBatch v2', role: 'ที่มาของสามช่อง producer ในหัว batch' },
  { chapter: 3, title: 'ทางเขียนลง log', role: 'append ที่บทที่ 7 เรียกเมื่อคำตัดสินเป็น APPEND' },
  { chapter: 6, title: 'compaction', role: 'การเขียน batch ใหม่ที่ต้องเก็บสามช่องของ producer ไว้' },
  { chapter: 7, title: 'idempotent producer', role: 'บทนี้' },
  { chapter: 8, title: 'replication', role: 'สำเนาของ log และเส้น committed (บทสุดท้าย)' },
];
