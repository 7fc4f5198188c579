// Wires one simulator on the page to its sandbox and to the checker's replay. Everything the reader
// sees is rendered from the sandbox's state after each action, with textContent only.
import { toProducerId } from '@klog/core';
import { VERDICT_NAMES } from '@klog/model';
import { counterexampleReplay, type Replay } from './replay.js';
import { DEFAULT_IN_FLIGHT, rangeOf, Sandbox, type SimEvent, windowOf } from './sandbox.js';
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

export function mountSimulator(root: HTMLElement): void {
  const $ = <T extends HTMLElement = HTMLElement>(selector: string): T => {
    const el = root.querySelector<T>(selector);
    if (el === null) throw new Error(`simulator: ${selector} is missing`);
    return el;
  };
  const sendButtons = Array.from(root.querySelectorAll<HTMLButtonElement>('[data-sim-send]'));
  const cap = $<HTMLSelectElement>('[data-sim-cap]');
  const eventList = $('[data-sim-events]');
  const replayPanel = $('[data-sim-replay-panel]');

  let sim = new Sandbox();
  let replay: Replay | undefined;
  let at = 0;

  const log = (event: SimEvent | undefined) => {
    if (event !== undefined) {
      eventList.append(item('li', eventWords(event)));
      eventList.scrollTop = eventList.scrollHeight;
    }
    render();
  };

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
        const li = item('li', `${rangeOf(batch.firstSeq, batch.lastSeq)} · ${sentWords(batch)}`);
        li.dataset['simBatch'] = rangeOf(batch.firstSeq, batch.lastSeq);
        const again = document.createElement('button');
        again.type = 'button';
        again.textContent = 'ส่งซ้ำ';
        again.setAttribute('aria-label', `ส่ง ${rangeOf(batch.firstSeq, batch.lastSeq)} ซ้ำ`);
        again.addEventListener('click', () => log(sim.resend(index)));
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
      if (sim.canSendNext()) log(sim.send(fate));
    });
  }
  cap.addEventListener('change', () => {
    sim.inFlightCap = Number(cap.value);
    render();
  });
  $('[data-sim-session]').addEventListener('click', () => log(sim.newSession()));
  $('[data-sim-roll]').addEventListener('click', () => log(sim.roll()));
  $('[data-sim-restart]').addEventListener('click', () => log(sim.restart()));
  $('[data-sim-reset]').addEventListener('click', () => {
    sim = new Sandbox();
    cap.value = String(DEFAULT_IN_FLIGHT);
    eventList.replaceChildren();
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
    if (document.activeElement instanceof HTMLButtonElement && document.activeElement.disabled) {
      $<HTMLButtonElement>(at === 0 ? '[data-sim-replay-next]' : '[data-sim-replay-prev]').focus();
    }
  };
  $('[data-sim-replay-prev]').addEventListener('click', () => move(at - 1));
  $('[data-sim-replay-next]').addEventListener('click', () => move(at + 1));
  $('[data-sim-replay-end]').addEventListener('click', () => move(Number.POSITIVE_INFINITY));
  $('[data-sim-replay-close]').addEventListener('click', () => {
    replayPanel.hidden = true;
    $<HTMLButtonElement>('[data-sim-replay]').focus();
  });

  render();
}
