// The history a failed `klog lab check` stage writes beside the learner's file (klog-lab-history.json,
// packages/cli/src/lab/lab-history.ts), opened in the page: the failed check's fields, every send with
// its answer in order, and the batches the log holds. Read with FileReader and rendered with textContent
// only; nothing leaves the browser.

/** The version `klog lab check` writes; another is refused with a line saying so. */
export const LAB_HISTORY_VERSION = 1;

export interface LabHistory {
  readonly version: number;
  readonly stage: string;
  readonly title: string;
  readonly seed: number;
  readonly summary: string;
  readonly rows: readonly { readonly field: string; readonly expected: string; readonly actual: string }[];
  readonly sends: readonly { readonly who: string; readonly seq: string; readonly answer: string }[];
  readonly log: readonly { readonly offsets: string; readonly who: string; readonly seq: string }[];
}

export type Parsed =
  | { readonly kind: 'ok'; readonly history: LabHistory }
  | { readonly kind: 'bad'; readonly why: string };

const isText = (v: unknown) => typeof v === 'string';
const listOf = (v: unknown, keys: readonly string[]) =>
  Array.isArray(v) &&
  v.every(
    (x) =>
      typeof x === 'object' && x !== null && keys.every((k) => isText((x as Record<string, unknown>)[k])),
  );

/** Check the file's shape field by field: a file that is not a lab history says so, it is not drawn half. */
export function parseLabHistory(text: string): Parsed {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { kind: 'bad', why: 'ไม่ใช่ JSON: เลือก klog-lab-history.json ที่ klog lab check เขียนไว้ข้าง lab.ts' };
  }
  if (typeof v !== 'object' || v === null) return { kind: 'bad', why: 'ไม่ใช่ประวัติจาก klog lab check' };
  if (v['version'] !== LAB_HISTORY_VERSION)
    return { kind: 'bad', why: `รุ่นของ file คือ ${String(v['version'])} หน้านี้อ่านรุ่น ${LAB_HISTORY_VERSION}` };
  const ok =
    isText(v['stage']) &&
    isText(v['title']) &&
    isText(v['summary']) &&
    typeof v['seed'] === 'number' &&
    listOf(v['rows'], ['field', 'expected', 'actual']) &&
    listOf(v['sends'], ['who', 'seq', 'answer']) &&
    listOf(v['log'], ['offsets', 'who', 'seq']);
  if (!ok) return { kind: 'bad', why: 'ช่องของ file ไม่ครบ: ไม่ใช่ประวัติจาก klog lab check' };
  return { kind: 'ok', history: v as unknown as LabHistory };
}

function cells(tr: HTMLTableRowElement, texts: readonly string[]): HTMLTableRowElement {
  for (const text of texts) {
    const td = document.createElement('td');
    td.textContent = text;
    tr.append(td);
  }
  return tr;
}

/** Wire the panel: the file input reads a history and draws it. `setText` colours the verdict names. */
export function mountLabHistory(root: HTMLElement, setText: (el: HTMLElement, text: string) => void): void {
  const panel = root.querySelector<HTMLElement>('[data-sim-lab]');
  if (panel === null) return;
  const $ = <T extends HTMLElement>(s: string) => panel.querySelector<T>(s)!;
  const input = $<HTMLInputElement>('[data-sim-lab-file]');
  const error = $('[data-sim-lab-error]');
  const view = $('[data-sim-lab-view]');
  const show = (history: LabHistory) => {
    error.textContent = '';
    $('[data-sim-lab-title]').textContent =
      `stage ${history.stage} · seed ${history.seed} · ${history.title}`;
    setText($('[data-sim-lab-summary]'), history.summary);
    $('[data-sim-lab-rows]').replaceChildren(
      ...history.rows.map((r) => {
        const tr = cells(document.createElement('tr'), [r.field, r.expected, r.actual]);
        if (r.expected !== r.actual) tr.dataset['simLabWrong'] = '';
        return tr;
      }),
    );
    $('[data-sim-lab-timeline]').replaceChildren(
      ...history.sends.map((s) => {
        const li = document.createElement('li');
        li.dataset['simLabBatch'] = s.seq;
        setText(li, `${s.who} · seq ${s.seq} → ${s.answer}`);
        return li;
      }),
    );
    // The same sequences of one writer at two places on the log: the duplicate the stage is about.
    const seen = new Set<string>();
    $('[data-sim-lab-log]').replaceChildren(
      ...history.log.map((w) => {
        const tr = cells(document.createElement('tr'), [w.offsets, w.who, w.seq]);
        const key = `${w.who}|${w.seq}`;
        if (seen.has(key)) {
          tr.dataset['simLabRepeat'] = '';
          tr.lastElementChild!.append(' (ซ้ำ)');
        }
        seen.add(key);
        return tr;
      }),
    );
    view.hidden = false;
  };
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file === undefined) return;
    void file.text().then((text) => {
      const parsed = parseLabHistory(text);
      if (parsed.kind === 'ok') show(parsed.history);
      else {
        view.hidden = true;
        error.textContent = `${file.name}: ${parsed.why}`;
      }
    });
  });
}
