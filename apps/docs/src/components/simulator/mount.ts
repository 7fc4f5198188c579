// Wires one simulator on the page to its sandbox and to the checker's replay. Everything the reader
// sees is rendered from the sandbox's state after each action, with textContent only.
import { toProducerId } from '@klog/core';
import { VERDICT_NAMES } from '@klog/model';
import { mountLabHistory } from './lab-history.js';
import { counterexampleReplay, type Replay } from './replay.js';
import {
  DEFAULT_IN_FLIGHT,
  rangeOf,
  Sandbox,
  type SimEvent,
  SMALL_SEGMENT_BYTES,
  windowOf,
} from './sandbox.js';
import { eventWords, sentWords } from './words.js';

const NAMES = Object.values(VERDICT_NAMES);
const SPLIT = new RegExp(`(${NAMES.join('|')})`);

/** Put `text` in `el`, each verdict name in a span the stylesheet colours (data-verdict). */
function setText(el: HTMLElement, text: string): void {
  el.replaceChildren();
  for (const part of text.split(SPLIT)) {
    if (part === '') continue;
    if (NAMES.includes(part)) {
      const span = document.createElement('span');
      span.dataset['verdict'] = part;
      // OUT_OF_ORDER_SEQUENCE_NUMBER may break after an underscore on a narrow screen, not mid-word.
      for (const [i, piece] of part.split('_').entries()) {
        if (i > 0) span.append('_', document.createElement('wbr'));
        span.append(piece);
      }
      el.append(span);
    } else {
      el.append(part);
    }
  }
}

function item(tag: 'li' | 'tr', text?: string): HTMLElement {
  const el = document.createElement(tag);
  if (text !== undefined) setText(el, text);
  return el;
}

/** One thing the reader did: the page keeps the list (localStorage) and replays it on the next visit. */
type Action =
  | { readonly op: 'send'; readonly fate: 'answered' | 'ack-lost' | 'request-lost' }
  | { readonly op: 'resend'; readonly index: number }
  | { readonly op: 'probe'; readonly seq: number }
  | { readonly op: 'session' }
  | { readonly op: 'roll' }
  | { readonly op: 'restart' };

interface Saved {
  readonly cap: number;
  readonly segmentBytes: number | undefined;
  readonly actions: readonly Action[];
}

const STORAGE_PREFIX = 'klog-sim:';
const MAX_SEQUENCE = 2 ** 31 - 1;

function loadSaved(key: string): Saved | undefined {
  try {
    const raw = localStorage.getItem(key);
    if (raw === null) return undefined;
    const saved = JSON.parse(raw) as Saved;
    return Array.isArray(saved.actions) && Number.isInteger(saved.cap) ? saved : undefined;
  } catch {
    return undefined; // storage refused (private mode) or a stale shape: start afresh
  }
}

function store(key: string, saved: Saved): void {
  try {
    localStorage.setItem(key, JSON.stringify(saved));
  } catch {
    // A full or refused storage only costs the reader the memory of the session.
  }
}

export function mountSimulator(root: HTMLElement): void {
  const $ = <T extends HTMLElement = HTMLElement>(selector: string): T => {
    const el = root.querySelector<T>(selector);
    if (el === null) throw new Error(`simulator: ${selector} is missing`);
    return el;
  };
  const sendButtons = Array.from(root.querySelectorAll<HTMLButtonElement>('[data-sim-send]'));
  const cap = $<HTMLSelectElement>('[data-sim-cap]');
  const segmentBytes = $<HTMLSelectElement>('[data-sim-segment-bytes]');
  const eventList = $('[data-sim-events]');
  const replayPanel = $('[data-sim-replay-panel]');
  const storageKey = `${STORAGE_PREFIX}${root.dataset['klogSim'] ?? 'window'}`;

  let sim = new Sandbox();
  let actions: Action[] = [];
  let replay: Replay | undefined;
  let at = 0;

  const settings = () => ({
    cap: Number(cap.value),
    segmentBytes: segmentBytes.value === '' ? undefined : SMALL_SEGMENT_BYTES,
  });
  const save = () => store(storageKey, { ...settings(), actions });

  /** Apply one action to the sandbox; undefined when the sandbox refuses it (the page then keeps no record). */
  function perform(action: Action): SimEvent | undefined {
    switch (action.op) {
      case 'send':
        return sim.canSendNext() ? sim.send(action.fate) : undefined;
      case 'resend':
        return sim.sent[action.index] === undefined ? undefined : sim.resend(action.index);
      case 'probe':
        return sim.probe(action.seq);
      case 'session':
        return sim.newSession();
      case 'roll':
        return sim.roll();
      case 'restart':
        return sim.restart();
    }
  }

  const account = (event: SimEvent) => eventList.append(item('li', eventWords(event)));

  /** What the reader does: apply, record, render, and keep the focus where a keyboard user can go on. */
  const act = (action: Action) => {
    const focused = focusKey(document.activeElement);
    const event = perform(action);
    if (event !== undefined) {
      actions.push(action);
      account(event);
      eventList.scrollTop = eventList.scrollHeight;
      save();
    }
    render();
    restoreFocus(focused);
  };

  /** A selector that finds the focused control again after render() rebuilt the list it sits in. */
  function focusKey(el: Element | null): string | undefined {
    if (!(el instanceof HTMLElement) || !root.contains(el)) return undefined;
    const again = el.dataset['simAgain'];
    if (again !== undefined) return `[data-sim-again="${again}"]`;
    const fate = el.dataset['simSend'];
    if (fate !== undefined) return `[data-sim-send="${fate}"]`;
    return undefined;
  }

  /**
   * Re-focus the same control; if it is gone or just became disabled (the cap filled), go to what
   * the reader must do next: resend the oldest batch that is not on the log, else send.
   */
  function restoreFocus(key: string | undefined): void {
    if (key === undefined) return;
    const same = root.querySelector<HTMLButtonElement>(key);
    if (same !== null && !same.disabled) {
      same.focus();
      return;
    }
    const next =
      root.querySelector<HTMLButtonElement>('[data-sim-pending] [data-sim-again]') ??
      sendButtons.find((b) => !b.disabled);
    next?.focus();
  }

  function render(): void {
    const next = sim.nextRange();
    $('[data-sim-producer]').textContent =
      `pid ${sim.pid} · batch ถัดไป ${rangeOf(next.firstSeq, next.lastSeq)} · ค้าง ${sim.waiting}/${sim.inFlightCap}`;
    const blocked = !sim.canSendNext();
    for (const b of sendButtons) b.disabled = blocked;
    $('[data-sim-blocked]').textContent = blocked
      ? `ค้างครบ ${sim.inFlightCap} batch แล้ว: ก้อนใหม่ต้องรอคำตอบ หรือส่งก้อนที่ค้างซ้ำก่อน`
      : '';

    const sent = $('[data-sim-sent]');
    sent.replaceChildren(
      ...sim.sent.map((batch, index) => {
        const range = rangeOf(batch.firstSeq, batch.lastSeq);
        const li = item('li', `${range} · ${sentWords(batch)}`);
        li.dataset['simBatch'] = range;
        if (sim.needsResend(batch)) li.dataset['simPending'] = '';
        const again = document.createElement('button');
        again.type = 'button';
        again.textContent = 'ส่งซ้ำ';
        again.dataset['simAgain'] = range;
        again.setAttribute('aria-label', `ส่ง ${range} ซ้ำ`);
        again.addEventListener('click', () => act({ op: 'resend', index }));
        li.append(again);
        return li;
      }),
    );

    const { broker } = sim;
    $('[data-sim-window-pid]').textContent = `pid ${sim.pid}`;
    $('[data-sim-window]').textContent = `[${windowOf(broker.state.get(toProducerId(sim.pid))).join(' ')}]`;
    const others = broker.state
      .producerIds()
      .filter((pid) => pid !== sim.pid)
      .map((pid) => `pid ${pid} [${windowOf(broker.state.get(pid)).join(' ')}]`);
    $('[data-sim-others]').textContent = others.length > 0 ? `producer อื่น: ${others.join(' · ')}` : '';
    $('[data-sim-leo]').textContent = String(broker.logEndOffset);
    $('[data-sim-segment]').textContent = String(broker.activeSegment);
    $<HTMLButtonElement>('[data-sim-roll]').disabled = !broker.log.some(
      (b) => b.segment === broker.activeSegment,
    );
    $('[data-sim-log]').replaceChildren(
      ...broker.log.map((b) => {
        const tr = item('tr');
        for (const text of [
          rangeOf(b.firstOffset, b.lastOffset),
          String(b.pid),
          rangeOf(b.firstSeq, b.lastSeq),
          String(b.segment),
        ]) {
          const td = document.createElement('td');
          td.textContent = text;
          tr.append(td);
        }
        return tr;
      }),
    );
  }

  function renderReplay(): void {
    if (replay === undefined) return;
    const frame = replay.frames[at]!;
    const last = at === replay.frames.length - 1;
    $('[data-sim-replay-title]').textContent =
      `ตัวตรวจแบบจำลอง · ค้างได้ ${replay.inFlight} batch หน้าต่าง ${replay.window} · ` +
      `counterexample ${replay.frames.length} ขั้น (สำรวจ ${replay.states.toLocaleString('en-US')} state)`;
    const step = $('[data-sim-replay-step]');
    setText(step, `ขั้น ${frame.step}/${replay.frames.length} · ${frame.actor} · ${frame.text}`);
    step.dataset['step'] = String(frame.step);
    $('[data-sim-replay-producer]').textContent = frame.producer
      .map((p) => `${p.range} ${p.status}`)
      .join(' · ');
    setText($('[data-sim-replay-requests]'), frame.requests);
    setText($('[data-sim-replay-acks]'), frame.acks);
    $('[data-sim-replay-window]').textContent = frame.window;
    $('[data-sim-replay-log]').textContent = `${frame.log} · log end offset ${frame.logEndOffset}`;
    $<HTMLButtonElement>('[data-sim-replay-prev]').disabled = at === 0;
    $<HTMLButtonElement>('[data-sim-replay-next]').disabled = last;
    $<HTMLButtonElement>('[data-sim-replay-end]').disabled = last;
    const verdict = $('[data-sim-replay-verdict]');
    verdict.hidden = !last;
    verdict.replaceChildren();
    if (last) {
      const lines = [`ผิดข้อ "${replay.broken}"`, replay.violation, ...(replay.cause ? [replay.cause] : [])];
      for (const text of lines) {
        const p = document.createElement('p');
        setText(p, text);
        verdict.append(p);
      }
      const clients = document.createElement('ul');
      for (const client of replay.clients) {
        clients.append(item('li', `${client.name}: ${client.lines.join(' ')}`));
      }
      verdict.append(clients);
    }
  }

  for (const button of sendButtons) {
    button.addEventListener('click', () => {
      const fate = button.dataset['simSend'] as 'answered' | 'ack-lost' | 'request-lost';
      act({ op: 'send', fate });
    });
  }
  const applySettings = () => {
    const { cap: n, segmentBytes: bytes } = settings();
    sim.inFlightCap = n;
    sim.segmentBytes = bytes;
  };
  cap.addEventListener('change', () => {
    applySettings();
    save();
    render();
  });
  segmentBytes.addEventListener('change', () => {
    applySettings();
    save();
    render();
  });
  const seqInput = $<HTMLInputElement>('[data-sim-seq]');
  $<HTMLFormElement>('[data-sim-probe]').addEventListener('submit', (e) => {
    e.preventDefault();
    const seq = Number(seqInput.value);
    if (seqInput.value.trim() === '' || !Number.isInteger(seq) || seq < 0 || seq > MAX_SEQUENCE) return;
    act({ op: 'probe', seq });
  });
  $('[data-sim-session]').addEventListener('click', () => act({ op: 'session' }));
  $('[data-sim-roll]').addEventListener('click', () => act({ op: 'roll' }));
  $('[data-sim-restart]').addEventListener('click', () => act({ op: 'restart' }));
  // "Start again" clears what was done and its memory, and keeps the settings the reader chose:
  // a guided step that sets the cap (or segment.bytes) and then starts again keeps it.
  $('[data-sim-reset]').addEventListener('click', () => {
    sim = new Sandbox();
    actions = [];
    applySettings();
    eventList.replaceChildren();
    save();
    render();
  });

  $('[data-sim-replay]').addEventListener('click', () => {
    replay ??= counterexampleReplay(6);
    at = 0;
    replayPanel.hidden = false;
    renderReplay();
    $<HTMLButtonElement>('[data-sim-replay-next]').focus();
  });
  const move = (to: number) => {
    if (replay === undefined) return;
    at = Math.max(0, Math.min(replay.frames.length - 1, to));
    renderReplay();
    // A button that just became disabled drops the focus: keep it in the panel for keyboard users.
    // At the last step it goes to the verdict (not to "previous", where the next Enter would walk
    // backwards); at the first, to "next".
    if (document.activeElement instanceof HTMLButtonElement && document.activeElement.disabled) {
      if (at === 0) $<HTMLButtonElement>('[data-sim-replay-next]').focus();
      else $('[data-sim-replay-verdict]').focus();
    }
  };
  $('[data-sim-replay-prev]').addEventListener('click', () => move(at - 1));
  $('[data-sim-replay-next]').addEventListener('click', () => move(at + 1));
  $('[data-sim-replay-end]').addEventListener('click', () => move(Number.POSITIVE_INFINITY));
  $('[data-sim-replay-close]').addEventListener('click', () => {
    replayPanel.hidden = true;
    $<HTMLButtonElement>('[data-sim-replay]').focus();
  });

  // Back where the reader left off: settings first, then every action again through core.
  const saved = loadSaved(storageKey);
  if (saved !== undefined) {
    if (cap.querySelector(`option[value="${saved.cap}"]`)) cap.value = String(saved.cap);
    segmentBytes.value = saved.segmentBytes === undefined ? '' : String(SMALL_SEGMENT_BYTES);
    applySettings();
    for (const action of saved.actions) {
      const event = perform(action);
      if (event === undefined) break; // a list this page cannot replay: keep what it could
      actions.push(action);
      account(event);
    }
    eventList.scrollTop = eventList.scrollHeight;
  } else {
    cap.value = String(DEFAULT_IN_FLIGHT);
  }
  mountLabHistory(root, setText);
  render();
}
