// The referee's tool /referee (裁判工具): choose the rules and the trump, pick cards by tapping a grid of the 54
// card faces into the fields of a question (is this follow legal, who wins this trick, does this throw stand,
// what does this hand settle to…), and read the answer in words. It sends exactly the request objects of
// docs/referee.md to POST /api/referee. With ?event=ID&round=N&table=K it also offers the penalty form (§14.4)
// for that table, which is exported for the organiser's page too.
import { t, getLang, onLangChange } from './i18n.js';
import * as api from './api.js';
import { el } from './dom.js';
import { suitSvg, cardName, rankText } from './cards.js';
import {
  LEVELS, ev, errorText, eventPath, field, levelText, loadPresetNames, numInput, organisePath, pairLabel, pairMap,
  presetText, segmented,
} from './events.js';

const SUIT_ROWS = ['s', 'h', 'c', 'd'];
const RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A'];
const TRUMPS = ['s', 'h', 'c', 'd', 'nt', 'flag'];
const SUIT_SIGN = { s: '♠', h: '♥', c: '♣', d: '♦' };

/** The questions, each with its card fields: [name, label key]. A field's name "plays.1" is plays[1] of the request. */
const OPS = {
  follow: [['lead', 'ref.f.lead'], ['hand', 'ref.f.hand'], ['play', 'ref.f.play']],
  trick: [['plays.0', 'ref.f.play0'], ['plays.1', 'ref.f.play1'], ['plays.2', 'ref.f.play2'], ['plays.3', 'ref.f.play3']],
  throw: [['lead', 'ref.f.throw'], ['others.0', 'ref.f.other0'], ['others.1', 'ref.f.other1'], ['others.2', 'ref.f.other2']],
  settle: [['last_trick.lead', 'ref.f.lastLead'], ['last_trick.winning_play', 'ref.f.lastWin']],
  kitty: [['lead', 'ref.f.lastLead'], ['kitty', 'ref.f.kitty']],
  classify: [['cards', 'ref.f.cards']],
};
const OP_ORDER = ['follow', 'trick', 'throw', 'settle', 'kitty', 'classify'];

/** Cards in the text of docs/referee.md, sorted for the eye (suit by suit, high to low; jokers first). */
function sortCodes(codes) {
  const key = (c) => (c === 'BJ' ? -2 : c === 'SJ' ? -1 : SUIT_ROWS.indexOf(c.slice(-1)) * 20 + (12 - RANKS.indexOf(c.slice(0, -1))));
  return codes.slice().sort((a, b) => key(a) - key(b));
}
const cardsText = (codes) => sortCodes(codes).join(' ');

/** A small card face as text and a suit mark (for the grid and the fields). */
function face(code, cls = 'rf-face') {
  const joker = code === 'SJ' || code === 'BJ';
  const suit = joker ? 'j' : code.slice(-1);
  const red = suit === 'h' || suit === 'd' || code === 'BJ';
  const node = el('span', { class: `${cls} ${red ? 'red' : 'black'}${joker ? ' joker' : ''}${code === '5h' ? ' heart5' : ''}` });
  if (joker) node.appendChild(el('span', { class: 'rf-rank', text: code === 'BJ' ? t('ref.bigJoker') : t('ref.smallJoker') }));
  else {
    node.appendChild(el('span', { class: 'rf-rank', text: rankText(code.slice(0, -1)) }));
    node.appendChild(suitSvg(suit, 'rf-suit'));
  }
  return node;
}

// ---------------------------------------------------------------- the answer in words

function sideWord(s) {
  return s === 'dealer' ? t('ref.dealerSide') : s === 'scoring' ? t('ref.scoringSide') : String(s);
}
function progress(p) {
  if (!p) return '—';
  return levelText(p.level) + (Number(p.circle) > 1 ? t('ev.circleShort', { n: p.circle }) : '');
}

/** The server's answer to a request, as lines of words. */
export function answerLines(req, ans) {
  if (!ans || typeof ans !== 'object') return [{ bad: true, text: t('ref.noAnswer') }];
  if (ans.error) return [{ bad: true, text: t('ref.error', { error: ans.error }) }];
  const out = [];
  switch (req.op) {
    case 'follow':
      if (ans.legal) out.push({ good: true, big: true, text: t('ref.legal') });
      else {
        out.push({ bad: true, big: true, text: t('ref.illegal') });
        if (ans.reason) out.push({ text: t('ref.because', { reason: ans.reason }) });
      }
      break;
    case 'trick': {
      const w = Number(ans.winner);
      out.push({ good: true, big: true, text: t('ref.trickWinner', { n: w + 1, which: t(`ref.f.play${w}`) }) });
      if (Array.isArray(req.plays) && req.plays[w] !== undefined) out.push({ cards: req.plays[w] });
      out.push({ text: t('ref.trickPoints', { n: ans.points ?? 0 }) });
      break;
    }
    case 'throw':
      if (ans.ok) out.push({ good: true, big: true, text: t('ref.throwStands') });
      else {
        out.push({ bad: true, big: true, text: t('ref.throwFails') });
        out.push({ text: t('ref.throwForced') }, { cards: ans.forced || '' });
        const per = ans.penalty_cards ? Math.round((ans.penalty ?? 0) / ans.penalty_cards) : 0;
        out.push({ text: t('ref.throwPenalty', { per, n: ans.penalty_cards ?? 0, points: ans.penalty ?? 0 }) });
      }
      break;
    case 'kitty':
      out.push({ good: true, big: true, text: t('ref.kittyPoints', { m: ans.multiplier, points: ans.points }) });
      break;
    case 'classify':
      if (ans.kind === 'invalid') out.push({ bad: true, big: true, text: t('ref.classifyInvalid') });
      else {
        out.push({ good: true, big: true, text: t('ref.classify', { kind: t(`ref.kind.${ans.kind}`), suit: ans.suit === 'trump' ? t('ref.trumpWord') : t(`suit.${ans.suit}`) }) });
        for (const u of ans.units || []) out.push({ label: t(`ref.kind.${u.kind}`), cards: u.cards });
      }
      break;
    case 'settle': {
      const keeps = ans.table === 'dealer';
      out.push({ good: true, big: true, text: keeps ? t('ref.settleKeeps') : t('ref.settleTakes') });
      out.push({ text: t('ref.settleDealer', { from: progress(req.dealer), to: progress(ans.dealer) }) });
      out.push({ text: t('ref.settleScoring', { from: progress(req.scoring), to: progress(ans.scoring) }) });
      out.push({ text: t('ref.settleNext', { side: sideWord(ans.table), kind: ans.next_hand === 'flag' ? t('ref.flagHand') : t('ref.normalHand') }) });
      if (ans.game_winner) out.push({ good: true, text: t('ref.settleWinner', { side: sideWord(ans.game_winner) }) });
      if (ans.credits) out.push({ text: t('ref.settleCredits', { d: ans.credits.dealer, s: ans.credits.scoring }) });
      break;
    }
    default:
      out.push({ text: JSON.stringify(ans) });
  }
  return out;
}

// ---------------------------------------------------------------- the penalty form (§14.4)

/**
 * The penalty form: offence (the schedule of GET /api/events/penalties), cards for a per-card offence, or custom
 * points; levels, warning, game lost, a note; the round, table and pair it is against. Shows its effect in
 * words and posts it to the event. opts: {eventId, event (for the pairs' names), round, table, onDone}.
 * Returns {node, setEvent(event), setTarget(round, table, pair)}.
 */
export function penaltyForm(opts) {
  const st = { schedule: null, event: opts.event || null, busy: false, custom: false };
  const node = el('form', { class: 'panel ev-penalty', testid: 'penalty-form', novalidate: true });
  const offence = el('select', { testid: 'penalty-offence' });
  const cards = numInput(1, { min: '1', max: '25', testid: 'penalty-cards' });
  const points = numInput(0, { min: '0', max: '1000', step: '5', testid: 'penalty-points' });
  const levels = numInput(0, { min: '0', max: '12', testid: 'penalty-levels' });
  const warning = el('input', { type: 'checkbox', testid: 'penalty-warning' });
  const lost = el('input', { type: 'checkbox', testid: 'penalty-game-lost' });
  const note = el('input', { type: 'text', maxlength: '200', testid: 'penalty-note', placeholder: t('pen.notePlaceholder') });
  const round = numInput(opts.round || 1, { min: '1', max: '99', testid: 'penalty-round' });
  const table = numInput(opts.table || 1, { min: '1', max: '999', testid: 'penalty-table' });
  const pair = el('select', { testid: 'penalty-pair' });
  const effect = el('p', { class: 'ev-effect', testid: 'penalty-effect', 'aria-live': 'polite' });
  const msg = el('p', { class: 'form-error', role: 'alert', hidden: true });
  const ok = el('p', { class: 'ev-ok', role: 'status', hidden: true });
  const submit = el('button', { type: 'submit', class: 'btn primary', testid: 'penalty-submit', text: t('pen.submit') });
  const cardsField = field(t('pen.cards'), cards, '', 'ev-num-field');

  node.append(
    el('h2', { class: 'panel-title', text: t('pen.title') }),
    el('p', { class: 'field-hint', text: t('pen.hint') }),
    el('div', { class: 'field-row' },
      field(t('pen.round'), round, '', 'ev-num-field'), field(t('pen.table'), table, '', 'ev-num-field')),
    field(t('pen.pair'), pair),
    field(t('pen.offence'), offence),
    el('div', { class: 'field-row' }, cardsField, field(t('pen.points'), points, '', 'ev-num-field'), field(t('pen.levels'), levels, '', 'ev-num-field')),
    el('div', { class: 'field-row' },
      el('label', { class: 'check' }, warning, el('span', { text: t('pen.warning') })),
      el('label', { class: 'check' }, lost, el('span', { text: t('pen.gameLost') }))),
    field(t('pen.note'), note),
    effect, msg, ok, submit);

  const entry = () => (st.schedule || []).find((s) => s.key === offence.value) || null;
  /** The pairing the penalty is for (from the event, when it is known). */
  function target() {
    const e = st.event;
    if (!e) return null;
    const r = (e.rounds || []).find((x) => x.number === Number(round.value));
    return (r && (r.pairings || []).find((x) => x.table === Number(table.value))) || null;
  }
  /** How often this pair was penalised for this offence before (a slow bury: first a warning, then points). */
  function before(key) {
    const p = target();
    if (!p || !st.event) return 0;
    const id = pair.value === 'b' ? p.b : p.a;
    return (st.event.penalties || []).filter((x) => x.pair === id && x.offence === key).length;
  }

  function fillSchedule() {
    const v = offence.value;
    offence.replaceChildren();
    for (const s of st.schedule || []) {
      const words = getLang() === 'zh' ? `${s.zh}` : `${s.en}`;
      const amount = s.per_card ? t('pen.perCardShort', { n: s.per_card })
        : s.warning_first ? t('pen.warningFirst', { n: s.points })
          : s.points ? t('pen.pointsShort', { n: s.points })
            : s.disqualify ? t('pen.disqualify') : s.custom ? t('pen.refereeDecides') : '';
      offence.appendChild(el('option', { value: s.key, text: amount ? `${words} — ${amount}` : words }));
    }
    if (v) offence.value = v;
    if (!offence.value && offence.options.length) offence.selectedIndex = 0;
    fromOffence();
  }

  function fillPairs() {
    const v = pair.value || 'a';
    pair.replaceChildren();
    const p = target();
    let a = null; let b = null;
    if (p) { const m = pairMap(st.event); a = m.get(p.a); b = p.b == null ? null : m.get(p.b); }
    pair.append(el('option', { value: 'a', 'data-label': a ? pairLabel(a) : 'A', text: a ? `A · ${pairLabel(a)}` : t('pen.pairA') }),
      el('option', { value: 'b', 'data-label': b ? pairLabel(b) : 'B', text: b ? `B · ${pairLabel(b)}` : t('pen.pairB') }));
    pair.value = v;
    paintEffect();
  }

  function fromOffence() {
    const s = entry();
    st.custom = offence.value === 'custom';
    cardsField.hidden = !(s && s.per_card);
    if (s) {
      // the schedule's default, as the server works it out when nothing else is given (RULES §14.4)
      const again = s.warning_first && before(s.key) > 0;
      points.value = String(s.per_card ? s.per_card * (parseInt(cards.value, 10) || 1) : s.warning_first ? (again ? s.points || 0 : 0) : s.custom ? 0 : s.points || 0);
      warning.checked = !!s.warning_first && !again;
      lost.checked = !!s.disqualify;
    }
    paintEffect();
  }

  function pairName() {
    const o = pair.options[pair.selectedIndex];
    return o ? o.dataset.label || o.textContent : pair.value;
  }

  function paintEffect() {
    const s = entry();
    const n = parseInt(cards.value, 10) || 0;
    const pts = parseInt(points.value, 10) || 0;
    const lv = parseInt(levels.value, 10) || 0;
    const parts = [];
    const who = pairName();
    if (pts) {
      if (s && s.per_card && pts === s.per_card * n) parts.push(t('pen.effectPerCard', { per: s.per_card, n, points: pts, pair: who }));
      else parts.push(t('pen.effectPoints', { points: pts, pair: who }));
    }
    if (lv) parts.push(t('pen.effectLevels', { n: lv, pair: who }));
    if (warning.checked) parts.push(t('pen.effectWarning', { pair: who }));
    if (lost.checked) parts.push(s && s.disqualify ? t('pen.effectDisqualified', { pair: who }) : t('pen.effectLost', { pair: who }));
    effect.textContent = parts.length ? parts.join(t('common.noteSep')) : t('pen.effectNone');
    effect.title = t('pen.effectRule');
  }

  offence.addEventListener('change', fromOffence);
  cards.addEventListener('input', () => { const s = entry(); if (s && s.per_card) points.value = String(s.per_card * (parseInt(cards.value, 10) || 0)); paintEffect(); });
  for (const x of [points, levels]) x.addEventListener('input', paintEffect);
  for (const x of [warning, lost]) x.addEventListener('change', paintEffect);
  for (const x of [round, table]) x.addEventListener('input', fillPairs);
  pair.addEventListener('change', () => { const s = entry(); if (s && s.warning_first) fromOffence(); else paintEffect(); });

  node.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (st.busy) return;
    const s = entry();
    const body = {
      round: parseInt(round.value, 10), table: parseInt(table.value, 10), pair: pair.value,
      offence: offence.value,
      cards: s && s.per_card ? parseInt(cards.value, 10) || 0 : 0,
      points: parseInt(points.value, 10) || 0,
      levels: parseInt(levels.value, 10) || 0,
      warning: warning.checked, game_lost: lost.checked, note: note.value.trim(),
    };
    if (!body.points && !body.levels && !body.warning && !body.game_lost) {
      msg.textContent = t('pen.empty');
      msg.hidden = false;
      return;
    }
    st.busy = true;
    submit.disabled = true;
    msg.hidden = true;
    ok.hidden = true;
    try {
      await ev.penalty(opts.eventId, body);
      ok.textContent = t('pen.done', { effect: effect.textContent });
      ok.hidden = false;
      note.value = '';
      if (opts.onDone) opts.onDone();
    } catch (ex) {
      msg.textContent = t('pen.failed', { error: errorText(ex) });
      msg.hidden = false;
    }
    st.busy = false;
    submit.disabled = false;
  });

  ev.schedule().then((d) => { st.schedule = d.schedule || []; fillSchedule(); }).catch((ex) => {
    st.schedule = [];
    fillSchedule();
    msg.textContent = t('pen.scheduleFailed', { error: errorText(ex) });
    msg.hidden = false;
  });
  fillPairs();
  fillSchedule();

  return {
    node,
    setEvent(event) { st.event = event; fillPairs(); },
    setTarget(r, tb, p) {
      if (r != null) round.value = String(r);
      if (tb != null) table.value = String(tb);
      fillPairs();
      if (p) { pair.value = p; paintEffect(); }
    },
  };
}

// ---------------------------------------------------------------- /referee

export function mountReferee(root) {
  const params = new URLSearchParams(location.search);
  const eventId = params.get('event');
  const st = {
    presets: null, preset: 'standard', level: '2', trump: 's', op: 'follow',
    cards: {}, active: 'lead', busy: false, answer: null, request: null, error: '',
    settle: { points: 40, dealer: { level: '2', circle: 1 }, scoring: { level: '2', circle: 1 }, winner: '', double_red5: '', flag_failures: 0, withTrump: false },
  };
  let disposed = false;
  const page = el('section', { class: 'info-page ev-page ref-page', testid: 'referee-page' });
  root.appendChild(page);
  let grid; let fieldsBox; let answerBox; let askBtn; let settleBox; let pen = null;

  const fieldsOf = (op) => OPS[op].map(([name]) => name);
  const codesOf = (name) => st.cards[name] || (st.cards[name] = []);

  function build() {
    page.replaceChildren();
    page.appendChild(el('div', { class: 'page-head' },
      el('div', { class: 'page-head-text' },
        el('h1', { text: t('ref.title') }),
        el('p', { class: 'muted', text: t('ref.intro') })),
      eventId ? el('a', { class: 'btn small ghost', href: organisePath(eventId), 'data-link': '', text: t('ref.backToEvent') }) : null));

    // the rules and the trump
    const setup = el('section', { class: 'panel ref-setup' });
    const preset = el('select', { testid: 'ref-preset' });
    for (const p of st.presets || ['standard']) preset.appendChild(el('option', { value: p, text: presetText(p) }));
    preset.value = st.preset;
    preset.addEventListener('change', () => { st.preset = preset.value; });
    const level = el('select', { testid: 'ref-level' });
    for (const l of LEVELS) level.appendChild(el('option', { value: l, text: levelText(l) }));
    level.value = st.level;
    level.addEventListener('change', () => { st.level = level.value; st.settle.dealer.level = st.settle.dealer.level || st.level; });
    const trump = segmented('trump', TRUMPS.map((x) => [x, x === 'nt' ? t('ref.nt') : x === 'flag' ? t('ref.flag') : SUIT_SIGN[x]]), st.trump, (v) => { st.trump = v; level.disabled = v === 'flag'; });
    trump.node.classList.add('ref-trumps');
    for (const b of trump.node.querySelectorAll('[data-value=h],[data-value=d]')) b.classList.add('red');
    level.disabled = st.trump === 'flag';
    setup.append(el('div', { class: 'field-row' }, field(t('ref.preset'), preset), field(t('ref.level'), level, '', 'ref-level-field')),
      el('span', { class: 'field-label', text: t('ref.trump') }), trump.node);
    page.appendChild(setup);

    // the question
    const q = el('section', { class: 'panel ref-question' });
    const ops = segmented('op', OP_ORDER.map((o) => [o, t(`ref.op.${o}`)]), st.op, (v) => { st.op = v; st.active = fieldsOf(v)[0]; st.answer = null; st.error = ''; paintFields(); paintAnswer(); });
    ops.node.classList.add('ref-ops');
    q.appendChild(ops.node);
    fieldsBox = el('div', { class: 'ref-fields', testid: 'ref-fields' });
    settleBox = el('div', { class: 'ref-settle' });
    grid = el('div', { class: 'ref-grid', testid: 'card-grid', role: 'group', 'aria-label': t('ref.grid') });
    askBtn = el('button', { type: 'button', class: 'btn primary big ref-ask', testid: 'ref-ask', text: t('ref.ask'), onclick: ask });
    answerBox = el('div', { class: 'ref-answer', testid: 'ref-answer', 'aria-live': 'polite' });
    q.append(el('p', { class: 'field-hint', testid: 'ref-op-hint' }), settleBox, fieldsBox,
      el('div', { class: 'ref-grid-head' }, el('span', { class: 'field-label', testid: 'ref-grid-label' }), el('span', { class: 'field-hint', text: t('ref.gridHint') })),
      grid, askBtn, answerBox);
    page.appendChild(q);
    buildGrid();
    paintFields();
    paintAnswer();

    if (eventId) {
      pen = penaltyForm({ eventId, round: params.get('round'), table: params.get('table') });
      page.appendChild(pen.node);
      ev.get(eventId).then((e) => { if (!disposed && pen) pen.setEvent(e); }).catch(() => {});
    }
  }

  function buildGrid() {
    grid.replaceChildren();
    for (const s of SUIT_ROWS) {
      const row = el('div', { class: 'ref-grid-row' });
      for (const r of RANKS.slice().reverse()) row.appendChild(gridButton(r + s));
      grid.appendChild(row);
    }
    grid.appendChild(el('div', { class: 'ref-grid-row jokers' }, gridButton('BJ'), gridButton('SJ')));
  }

  function gridButton(code) {
    const b = el('button', { type: 'button', class: 'ref-card', 'data-card': code, title: cardName(code), 'aria-label': cardName(code),
      onclick: () => tapCard(code) }, face(code), el('span', { class: 'ref-count' }));
    return b;
  }

  /** A tap adds one copy to the field being filled; a third tap takes both away (the game has two of each). */
  function tapCard(code) {
    const list = codesOf(st.active);
    const n = list.filter((c) => c === code).length;
    if (n >= 2) st.cards[st.active] = list.filter((c) => c !== code);
    else list.push(code);
    st.answer = null;
    paintFields();
    paintAnswer();
  }

  function paintGrid() {
    const list = codesOf(st.active);
    for (const b of grid.querySelectorAll('[data-card]')) {
      const n = list.filter((c) => c === b.dataset.card).length;
      b.dataset.count = String(n);
      b.querySelector('.ref-count').textContent = n ? `×${n}` : '';
      b.setAttribute('aria-pressed', n ? 'true' : 'false');
    }
    const label = grid.parentElement && grid.parentElement.querySelector('[data-testid=ref-grid-label]');
    const f = OPS[st.op].find(([name]) => name === st.active);
    if (label) label.textContent = f ? t('ref.pickInto', { field: t(f[1]) }) : t('ref.grid');
  }

  function paintFields() {
    const hint = page.querySelector('[data-testid=ref-op-hint]');
    if (hint) hint.textContent = t(`ref.op.${st.op}.hint`);
    if (!fieldsOf(st.op).includes(st.active)) st.active = fieldsOf(st.op)[0];
    fieldsBox.replaceChildren();
    for (const [name, key] of OPS[st.op]) {
      const list = codesOf(name);
      const on = name === st.active;
      const chips = el('div', { class: 'ref-chips' });
      for (const [i, c] of sortCodes(list).entries()) {
        chips.appendChild(el('button', { type: 'button', class: 'ref-chip', title: t('ref.remove', { card: cardName(c) }), 'aria-label': t('ref.remove', { card: cardName(c) }), 'data-i': String(i),
          onclick: (ev2) => { ev2.stopPropagation(); const k = list.indexOf(c); if (k >= 0) list.splice(k, 1); st.answer = null; paintFields(); paintAnswer(); } }, face(c, 'rf-face small')));
      }
      if (!list.length) chips.appendChild(el('span', { class: 'ref-empty muted', text: on ? t('ref.tapBelow') : t('ref.emptyField') }));
      const box = el('div', { class: 'ref-field' + (on ? ' active' : ''), testid: 'ref-field-' + name.replace('.', '-'), 'data-field': name, 'data-cards': cardsText(list), role: 'button', tabindex: '0', 'aria-pressed': on ? 'true' : 'false',
        onclick: () => { st.active = name; paintFields(); },
        onkeydown: (k) => { if (k.key === 'Enter' || k.key === ' ') { k.preventDefault(); st.active = name; paintFields(); } } },
      el('div', { class: 'ref-field-head' },
        el('span', { class: 'ref-field-label', text: t(key) }),
        el('span', { class: 'ref-field-count muted', text: list.length ? t('ref.nCards', { n: list.length }) : '' }),
        list.length ? el('button', { type: 'button', class: 'link-btn', text: t('ref.clear'), onclick: (e2) => { e2.stopPropagation(); st.cards[name] = []; st.answer = null; paintFields(); paintAnswer(); } }) : null),
      chips,
      list.length ? el('code', { class: 'ref-text', text: cardsText(list) }) : null);
      fieldsBox.appendChild(box);
    }
    paintSettle();
    paintGrid();
  }

  function levelSelect(value, onchange, testid) {
    const s = el('select', { testid });
    for (const l of [...LEVELS, 'flag']) s.appendChild(el('option', { value: l, text: levelText(l) }));
    s.value = value;
    s.addEventListener('change', () => onchange(s.value));
    return s;
  }

  function paintSettle() {
    settleBox.replaceChildren();
    settleBox.hidden = st.op !== 'settle';
    if (st.op !== 'settle') return;
    const S = st.settle;
    const pts = numInput(S.points, { min: '-1000', max: '100000', step: '5', testid: 'ref-points' });
    pts.addEventListener('input', () => { S.points = parseInt(pts.value, 10) || 0; });
    const side = (key) => {
      const circle = numInput(S[key].circle, { min: '1', max: '10', testid: `ref-${key}-circle` });
      circle.addEventListener('input', () => { S[key].circle = Math.max(1, parseInt(circle.value, 10) || 1); });
      return el('div', { class: 'ref-side' },
        el('span', { class: 'field-label', text: t(key === 'dealer' ? 'ref.dealerSide' : 'ref.scoringSide') }),
        el('div', { class: 'ref-side-row' },
          field(t('ref.levelNow'), levelSelect(S[key].level, (v) => { S[key].level = v; }, `ref-${key}-level`)),
          field(t('ref.circle'), circle, '', 'ev-num-field')));
    };
    const winner = el('select', { testid: 'ref-last-winner' });
    for (const [v, k] of [['', 'ref.lastNone'], ['scoring', 'ref.scoringSide'], ['dealer', 'ref.dealerSide']]) winner.appendChild(el('option', { value: v, text: t(k) }));
    winner.value = S.winner;
    winner.addEventListener('change', () => { S.winner = winner.value; });
    const red5 = el('select', { testid: 'ref-double-red5' });
    for (const [v, k] of [['', 'ref.red5None'], ['dealer', 'ref.dealerSide'], ['scoring', 'ref.scoringSide']]) red5.appendChild(el('option', { value: v, text: t(k) }));
    red5.value = S.double_red5;
    red5.addEventListener('change', () => { S.double_red5 = red5.value; });
    const ff = numInput(S.flag_failures, { min: '0', max: '1000' });
    ff.addEventListener('input', () => { S.flag_failures = Math.max(0, parseInt(ff.value, 10) || 0); });
    const withTrump = el('input', { type: 'checkbox' });
    withTrump.checked = S.withTrump;
    withTrump.addEventListener('change', () => { S.withTrump = withTrump.checked; });
    settleBox.append(
      el('div', { class: 'field-row' }, field(t('ref.points'), pts, t('ref.pointsHint'), 'ev-num-field'), field(t('ref.flagFailures'), ff, '', 'ev-num-field')),
      el('div', { class: 'ref-sides' }, side('dealer'), side('scoring')),
      el('div', { class: 'field-row' }, field(t('ref.lastWinner'), winner, t('ref.lastHint')), field(t('ref.doubleRed5'), red5)),
      el('label', { class: 'check' }, withTrump, el('span', { text: t('ref.withTrump') })));
  }

  /** The request object of docs/referee.md for the question as filled in. */
  function buildRequest() {
    const txt = (name) => cardsText(codesOf(name));
    const req = { op: st.op, rules: st.preset };
    if (st.op !== 'settle') {
      if (st.trump !== 'flag') req.level = st.level;
      req.trump = st.trump;
    }
    switch (st.op) {
      case 'follow': Object.assign(req, { lead: txt('lead'), hand: txt('hand'), play: txt('play') }); break;
      case 'trick': req.plays = [0, 1, 2, 3].map((i) => txt(`plays.${i}`)); break;
      case 'throw': Object.assign(req, { lead: txt('lead'), others: [0, 1, 2].map((i) => txt(`others.${i}`)) }); break;
      case 'kitty': Object.assign(req, { lead: txt('lead'), kitty: txt('kitty') }); break;
      case 'classify': req.cards = txt('cards'); break;
      case 'settle': {
        const S = st.settle;
        Object.assign(req, { points: S.points, dealer: { level: S.dealer.level, circle: S.dealer.circle }, scoring: { level: S.scoring.level, circle: S.scoring.circle } });
        if (S.flag_failures) req.flag_failures = S.flag_failures;
        if (S.winner && codesOf('last_trick.winning_play').length) {
          req.last_trick = { winner: S.winner, winning_play: txt('last_trick.winning_play') };
          if (codesOf('last_trick.lead').length) req.last_trick.lead = txt('last_trick.lead');
        }
        req.double_red5 = S.double_red5 || null;
        if (S.withTrump) { req.trump = st.trump; if (st.trump !== 'flag') req.level = st.level; }
        break;
      }
      default: break;
    }
    return req;
  }

  /** What is missing before the question can be asked, in words; '' when it may be sent. */
  function missing(req) {
    const need = { follow: ['lead', 'hand', 'play'], throw: ['lead'], kitty: ['lead', 'kitty'], classify: ['cards'] }[req.op] || [];
    for (const k of need) if (!req[k]) return t('ref.missing', { field: t(OPS[req.op].find(([n]) => n === k)[1]) });
    if (req.op === 'trick' && req.plays.some((p) => !p)) return t('ref.missingPlays');
    return '';
  }

  async function ask() {
    if (st.busy) return;
    const req = buildRequest();
    const why = missing(req);
    st.request = req;
    if (why) { st.answer = { error: why, local: true }; paintAnswer(); return; }
    st.busy = true;
    askBtn.disabled = true;
    try {
      st.answer = await api.postJSON('/api/referee', req);
    } catch (e) {
      st.answer = { error: e.data && e.data.error ? e.data.error : errorText(e) };
    }
    st.busy = false;
    askBtn.disabled = false;
    if (!disposed) paintAnswer();
  }

  function paintAnswer() {
    answerBox.replaceChildren();
    if (!st.answer) { answerBox.hidden = true; return; }
    answerBox.hidden = false;
    const lines = st.answer.local ? [{ bad: true, text: st.answer.error }] : answerLines(st.request, st.answer);
    const verdict = st.answer.error ? 'error' : st.request.op === 'follow' ? (st.answer.legal ? 'legal' : 'illegal') : st.request.op === 'throw' ? (st.answer.ok ? 'stands' : 'fails') : 'answer';
    answerBox.dataset.verdict = verdict;
    for (const l of lines) {
      if (l.cards !== undefined) {
        const row = el('div', { class: 'ref-answer-cards' }, l.label ? el('span', { class: 'muted', text: l.label }) : null);
        for (const c of String(l.cards).split(/\s+/).filter(Boolean)) row.appendChild(face(c, 'rf-face small'));
        answerBox.appendChild(row);
      } else {
        answerBox.appendChild(el('p', { class: (l.big ? 'ref-verdict ' : '') + (l.good ? 'good' : l.bad ? 'bad' : ''), text: l.text }));
      }
    }
    if (!st.answer.local) {
      answerBox.appendChild(el('details', { class: 'ref-json' }, el('summary', { text: t('ref.json') }),
        el('code', { text: JSON.stringify(st.request) }), el('code', { text: JSON.stringify(st.answer) })));
    }
  }

  build();
  loadPresetNames().then((names) => { if (disposed) return; st.presets = names; build(); }).catch(() => {});
  const offLang = onLangChange(() => { document.title = `${t('ref.title')} · 炒地皮`; build(); });
  return () => { disposed = true; offLang(); };
}

export { eventPath };
