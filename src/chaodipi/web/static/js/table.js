// The table page /t/{id}: the seat picker, the WebSocket client, and the game drawn for one seat.
// The server is authoritative: this page draws the last message and sends what the player chooses.
import { t, has, onLangChange, getLang } from './i18n.js';
import * as api from './api.js';
import { parseCards, cardEl, cardPoints, containsAll, sameCards, suitSvg, rankText, cardRank, cardSuit, cardName, cardsName, isTrump } from './cards.js';
import { yourTurn, tick } from './sound.js';
import { roomName } from './lobby.js';
import { el } from './dom.js';

const POS = ['bottom', 'right', 'top', 'left']; // seat + k sits at POS[k]: play goes counter-clockwise (the next player on your right)
const RETRY_MS = [500, 1000, 2000, 4000, 5000];
const SPECIAL_RULE = { shangtian_ftk: '§11.5', shangtian_red5: '§11.5', jack: '§11.5' };


function go(path) {
  window.dispatchEvent(new CustomEvent('chaodipi:navigate', { detail: { path } }));
}

/** Cards as small inline chips for text lines ("5♥ K♠"). */
function miniCards(text) {
  const wrap = el('span', { class: 'mini-cards' });
  for (const c of parseCards(text)) {
    const suit = cardSuit(c);
    const red = suit === 'h' || suit === 'd' || c === 'BJ';
    const chip = el('span', { class: 'mini ' + (red ? 'red' : 'black') + (c === '5h' ? ' heart5' : ''), title: cardName(c) });
    if (suit === 'j') chip.textContent = c === 'BJ' ? t('card.bigJokerShort') : t('card.smallJokerShort');
    else {
      chip.appendChild(document.createTextNode(rankText(cardRank(c))));
      chip.appendChild(suitSvg(suit, 'mini-suit'));
    }
    wrap.appendChild(chip);
  }
  return wrap;
}

/** A text with {cards} replaced by mini cards (and other params by text). */
function richText(key, params = {}) {
  const out = el('span', { class: 'rich' });
  const text = t(key, Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'cards' && k !== 'cards2')));
  const parts = text.split(/(\{cards\}|\{cards2\})/);
  for (const part of parts) {
    if (part === '{cards}') out.appendChild(miniCards(params.cards || ''));
    else if (part === '{cards2}') out.appendChild(miniCards(params.cards2 || ''));
    else if (part) out.appendChild(document.createTextNode(part));
  }
  return out;
}

function trumpEl(trump, big = false) {
  const wrap = el('span', { class: 'trump-mark' + (big ? ' big' : '') });
  if (trump === null || trump === undefined || trump === '?') {
    wrap.classList.add('unknown');
    wrap.textContent = '?';
    wrap.title = t('trump.hidden');
  } else if (trump === 'nt') {
    wrap.textContent = t('trump.nt');
  } else if (trump === 'flag') {
    wrap.textContent = t('trump.flag');
  } else {
    wrap.classList.add(trump === 'h' || trump === 'd' ? 'red' : 'black');
    wrap.appendChild(suitSvg(trump, 'trump-suit'));
    wrap.appendChild(el('span', { class: 'trump-name', text: t(`suit.${trump}`) }));
  }
  return wrap;
}

function levelText(level) {
  if (level === 'flag') return t('level.flag');
  return rankText(String(level));
}

export function mountTable(root, tableId) {
  const S = {
    mine: api.getSeat(tableId),
    mode: 'loading', // loading | join | play | gone
    goneReason: '',
    summary: null,
    joinError: '',
    joinBusy: false,
    ws: null,
    conn: 'connecting',
    reconnecting: false,
    retry: 0,
    retryTimer: null,
    everOpen: false,
    tableName: '',
    rules: null,
    rulesFull: null,
    status: null,
    seats: [null, null, null, null],
    seat: null,
    seq: 0,
    hand: 0,
    eventsHand: null,
    events: [],
    game: null,
    view: null,
    deadline: null,
    deadlineAt: 0,
    sel: new Set(),
    handKey: '',
    cursor: -1,
    error: null,
    toast: null,
    pending: false,
    pendingTimer: null,
    showLast: false,
    logOpen: false,
    helpOpen: false,
    settleMin: false,
    readySent: null,
    turnKey: '',
    lastTickSec: null,
    dismissedThrow: -1,
    levelsAtStart: null,
    copyOk: false,
    msgId: 0,
    seenPlays: new Set(),
  };
  let disposed = false;
  const timers = [];
  const disposers = [];

  const page = el('section', { class: 'table-page', testid: 'table', 'data-table': String(tableId) });
  root.appendChild(page);

  // ------------------------------------------------------------------ helpers
  const mySeat = () => (S.seat !== null ? S.seat : S.mine ? S.mine.seat : null);
  const rel = (n) => (n - mySeat() + 4) % 4;
  const team = (n) => n % 2;
  const view = () => S.view;
  const legal = () => (S.view && S.view.legal) || {};
  function seatName(n, you = true) {
    if (n === null || n === undefined) return '';
    if (you && n === mySeat()) return t('table.you');
    const s = S.seats[n];
    if (!s || !s.name) return t('seat.number', { n });
    const twin = S.seats.some((o, k) => k !== n && o && o.name === s.name);
    return twin && mySeat() !== null ? `${s.name}·${t(`seat.role.${rel(n)}`)}` : s.name;
  }
  function realName(n) {
    const s = S.seats[n];
    return s && s.name ? s.name : t('seat.number', { n });
  }
  function teamNames(tm) {
    return [tm, tm + 2].map((n) => realName(n)).join(' & ');
  }
  function deadlineLeft() {
    if (!S.deadline) return null;
    return Math.max(0, S.deadline.ms - (performance.now() - S.deadlineAt));
  }
  function threshold() {
    const v = S.view;
    if (v && v.level === 'flag') return (S.rulesFull && S.rulesFull.flag_threshold) || 100;
    return 80;
  }
  function handCards() {
    return S.view ? parseCards(S.view.hand) : [];
  }
  function selectedCodes() {
    const cards = handCards();
    return [...S.sel].sort((a, b) => a - b).map((i) => cards[i]).filter(Boolean);
  }
  function myPlayTurn() {
    const l = legal();
    return !!(l.leads || l.follows);
  }
  function dealerTeam() {
    return S.view && S.view.dealer !== null && S.view.dealer !== undefined ? team(S.view.dealer) : null;
  }
  function isAuto(n) {
    const s = S.seats[n];
    return !!(s && s.auto);
  }
  function hasLeft(n) {
    return !!(S.view && Array.isArray(S.view.left) && S.view.left.includes(n));
  }

  // ------------------------------------------------------------------ socket
  function wsUrl() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${proto}//${location.host}/ws/tables/${tableId}`;
  }

  function send(obj) {
    if (!S.ws || S.ws.readyState !== WebSocket.OPEN) {
      showToast(t('table.notConnected'));
      return false;
    }
    S.ws.send(JSON.stringify(obj));
    return true;
  }

  function act(action) {
    S.msgId += 1;
    const ok = send({ type: 'act', seq: S.seq, action, id: 'a' + S.msgId + ':' + action.a });
    if (ok) {
      S.pending = true;
      S.error = null;
      clearTimeout(S.pendingTimer);
      S.pendingTimer = setTimeout(() => { S.pending = false; render(); }, 4000);
      render();
    }
  }

  function connect() {
    if (disposed || !S.mine) return;
    clearTimeout(S.retryTimer);
    S.conn = 'connecting';
    paintConn();
    let ws;
    try {
      ws = new WebSocket(wsUrl());
    } catch (e) {
      scheduleRetry();
      return;
    }
    S.ws = ws;
    ws.addEventListener('open', () => {
      if (ws !== S.ws) return;
      const hello = { type: 'hello', token: S.mine.token };
      if (S.eventsHand !== null && S.view) {
        hello.seq = S.seq;
        hello.hand = S.eventsHand;
        hello.events = S.events.length;
      }
      ws.send(JSON.stringify(hello));
    });
    ws.addEventListener('message', (ev) => {
      if (ws !== S.ws || disposed) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (_) { return; }
      handle(msg);
    });
    ws.addEventListener('close', (ev) => {
      if (ws !== S.ws || disposed) return;
      S.ws = null;
      S.conn = 'closed';
      onClose(ev.code);
    });
  }

  function onClose(code) {
    if (code === 4000 || code === 4401) {
      api.forgetSeat(tableId);
      S.mine = null;
      S.reconnecting = false;
      S.mode = 'gone';
      S.goneReason = code === 4000 ? (S.goneReason || 'left') : 'spent';
      build();
      return;
    }
    if (code === 4404) {
      S.reconnecting = false;
      S.mode = 'gone';
      S.goneReason = 'noTable';
      build();
      return;
    }
    S.reconnecting = true;
    scheduleRetry();
    render();
  }

  function scheduleRetry() {
    if (disposed) return;
    const delay = RETRY_MS[Math.min(S.retry, RETRY_MS.length - 1)];
    S.retry += 1;
    clearTimeout(S.retryTimer);
    S.retryTimer = setTimeout(connect, delay);
    paintConn();
  }

  function handle(msg) {
    switch (msg.type) {
      case 'welcome':
        S.conn = 'open';
        S.everOpen = true;
        S.reconnecting = false;
        S.retry = 0;
        S.tableName = msg.name || '';
        S.seat = msg.seat;
        if (S.mine && S.mine.seat !== msg.seat) { S.mine.seat = msg.seat; api.setSeat(tableId, S.mine); }
        S.rules = msg.rules;
        S.status = msg.status;
        S.seats = msg.seats;
        if (!msg.resumed) { S.events = []; S.eventsHand = null; }
        loadRules();
        applyState(msg);
        if (S.mode !== 'play') { S.mode = 'play'; build(); } else render();
        break;
      case 'update':
        applyState(msg);
        render();
        break;
      case 'seats':
        S.seats = msg.seats;
        if (typeof msg.seq === 'number') S.seq = Math.max(S.seq, msg.seq);
        render();
        break;
      case 'error':
        onError(msg);
        break;
      case 'left':
        if (msg.seat === mySeat()) {
          S.goneReason = msg.escaped ? 'escaped' : 'left';
          api.forgetSeat(tableId);
        }
        break;
      case 'pong':
      default:
        break;
    }
  }

  function applyState(msg) {
    const prevHand = S.hand;
    const prevSeq = S.seq;
    if (typeof msg.seq === 'number') S.seq = msg.seq;
    const events = Array.isArray(msg.events) ? msg.events : [];
    if (msg.view) {
      if (msg.hand !== S.eventsHand || msg.events_from === 0) {
        S.events = events.slice();
        S.eventsHand = msg.hand;
      } else if (msg.events_from === S.events.length) {
        S.events.push(...events);
      } else if (msg.events_from < S.events.length) {
        S.events = S.events.slice(0, msg.events_from).concat(events);
      } else {
        // a gap: we missed events; take what came and ask for a full snapshot
        S.events = S.events.concat(events);
        S.eventsHand = null;
        if (S.ws) { try { S.ws.close(4000 + 999, 'resync'); } catch (_) { /* ignore */ } }
      }
    }
    S.hand = msg.hand;
    S.game = msg.game;
    S.deadline = msg.deadline || null;
    S.deadlineAt = performance.now();
    S.view = msg.view;
    if (msg.game && msg.game.over) S.status = 'finished';
    else if (msg.view) S.status = 'playing';
    if (S.hand !== prevHand) {
      S.sel.clear();
      S.readySent = null;
      S.error = null;
      S.settleMin = false;
      S.showLast = false;
      S.levelsAtStart = msg.game ? JSON.parse(JSON.stringify(msg.game.levels)) : null;
    }
    if (S.seq !== prevSeq || msg.type === 'welcome') {
      S.pending = false;
      clearTimeout(S.pendingTimer);
    }
    const key = S.view ? S.view.hand : '';
    if (key !== S.handKey) {
      S.handKey = key;
      S.sel.clear();
      S.cursor = -1;
    }
    if (S.error && S.seq !== S.error.seq) S.error = null;
    // the turn signal
    const tk = turnInfo();
    const nowKey = tk.mine ? `${S.hand}:${tk.kind}:${S.view && S.view.to_act}:${S.seq}` : '';
    if (tk.mine && !S.turnKey) yourTurn();
    S.turnKey = nowKey;
  }

  function onError(msg) {
    S.pending = false;
    clearTimeout(S.pendingTimer);
    if (typeof msg.seq === 'number') S.seq = msg.seq;
    const id = msg.id || '';
    if (msg.code === 'stale') { render(); return; }
    if (id === 'ready') { render(); return; } // a server without "ready" just starts the next hand after its pause
    if (msg.code === 'illegal') {
      const isPlay = id.endsWith(':play');
      S.error = { text: (isPlay ? t('table.illegalPlay') : t('table.illegalAction')) + msg.message, seq: S.seq };
      render();
      return;
    }
    const word = has(`error.${msg.code}`) ? t(`error.${msg.code}`) : msg.code;
    showToast(`${word}: ${msg.message}`);
  }

  function showToast(text) {
    S.toast = { text, at: Date.now() };
    render();
    const my = S.toast;
    setTimeout(() => { if (S.toast === my) { S.toast = null; render(); } }, 5000);
  }

  async function loadRules() {
    if (!S.rules || S.rulesFull) return;
    try {
      const data = await api.getPresets();
      const base = data.presets.find((p) => p.name === S.rules.preset);
      if (base) {
        S.rulesFull = { ...base.rules, ...(S.rules.set || {}) };
        render();
      }
    } catch (_) { /* the page works without it */ }
  }

  // ------------------------------------------------------------------ turn
  function turnInfo() {
    const v = S.view;
    const me = mySeat();
    if (!v) return { mine: false };
    const l = v.legal || {};
    if (l.bury) return { mine: true, kind: 'bury' };
    if (l.pass || (l.fries && l.fries.length)) return { mine: true, kind: 'fry' };
    if (l.leads || l.follows) return { mine: true, kind: 'play' };
    if (v.phase === 'countdown' && l.bids && l.bids.length) return { mine: true, kind: 'declare' };
    if (v.to_act === me && ['bury', 'fry', 'play'].includes(v.phase)) return { mine: true, kind: v.phase };
    return { mine: false };
  }

  // ------------------------------------------------------------------ actions
  function toggleCard(i) {
    const v = S.view;
    if (!v) return;
    const l = legal();
    const canSelect = l.bury || v.phase === 'play';
    if (!canSelect) return;
    if (S.sel.has(i)) S.sel.delete(i);
    else {
      if (l.bury && S.sel.size >= l.bury) return;
      S.sel.add(i);
    }
    S.cursor = i;
    S.error = null;
    render();
  }

  function clearSel() {
    S.sel.clear();
    S.error = null;
    render();
  }

  /** Whether a selection would be led as a throw 甩牌: several cards of one effective suit, not one listed lead. */
  function isThrowSelection(cards) {
    const l = legal();
    const v = S.view;
    if (!l.leads || !l.throws || cards.length < 2 || !v) return false;
    if (l.leads.some((x) => sameCards(parseCards(x), cards))) return false;
    const suits = new Set(cards.map((c) => (isTrump(c, v.level, v.trump) ? 'T' : cardSuit(c))));
    return suits.size === 1;
  }

  async function doPlay() {
    if (!myPlayTurn() || S.pending) return;
    const cards = selectedCodes();
    if (!cards.length) return;
    if (isThrowSelection(cards)) {
      const ok = await confirmDialog(t('table.throwConfirm', { cards: cardsName(cards) }), t('table.throwOk'), t('common.cancel'));
      if (!ok || !myPlayTurn() || S.pending) return;
    }
    act({ a: 'play', cards: cards.join(' ') });
  }

  /** An in-page confirmation: resolves true (confirmed) or false. */
  function confirmDialog(text, okLabel, cancelLabel) {
    return new Promise((resolve) => {
      const old = document.querySelector('[data-testid=confirm-dialog]');
      if (old) old.remove();
      let done = false;
      const finish = (v) => {
        if (done) return;
        done = true;
        document.removeEventListener('keydown', onKeyDlg, true);
        box.remove();
        resolve(v);
      };
      const onKeyDlg = (e) => {
        if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); finish(false); }
        else if (e.key === 'Enter') { e.preventDefault(); e.stopPropagation(); finish(true); }
      };
      const ok = el('button', { type: 'button', class: 'btn primary', testid: 'confirm-ok', text: okLabel, onclick: () => finish(true) });
      const box = el('div', { class: 'confirm-overlay', testid: 'confirm-dialog', role: 'alertdialog', 'aria-modal': 'true' },
        el('div', { class: 'confirm-box' },
          el('p', { class: 'confirm-text', text }),
          el('div', { class: 'confirm-actions' },
            el('button', { type: 'button', class: 'btn', testid: 'confirm-cancel', text: cancelLabel, onclick: () => finish(false) }),
            ok)));
      box.addEventListener('click', (e) => { if (e.target === box) finish(false); });
      document.addEventListener('keydown', onKeyDlg, true);
      page.appendChild(box);
      ok.focus();
      disposers.push(() => finish(false));
    });
  }

  function doBury() {
    const l = legal();
    if (!l.bury || S.pending) return;
    const cards = selectedCodes();
    if (cards.length !== l.bury) return;
    act({ a: 'bury', cards: cards.join(' ') });
  }

  function doPass() {
    if (!legal().pass || S.pending) return;
    act({ a: 'pass' });
  }

  function doBid(opt, fry = false) {
    const action = { a: fry ? 'fry' : 'bid', cards: opt.cards };
    if (opt.choose) action.choose = opt.choose;
    act(action);
  }

  function toggleAuto() {
    const me = mySeat();
    if (me === null) return;
    send({ type: 'auto', on: !isAuto(me), id: 'auto' });
  }

  function doReady() {
    if (send({ type: 'ready', id: 'ready' })) {
      S.readySent = S.hand;
      render();
    }
  }

  function doAgain() {
    send({ type: 'again', id: 'again' });
  }

  async function doLeave() {
    const inGame = S.status === 'playing' && S.view && !(S.game && S.game.over);
    const penalty = S.rulesFull && S.rulesFull.escape_penalty;
    const text = inGame
      ? (penalty ? t('table.leaveConfirmPenalty', { n: penalty }) : t('table.leaveConfirmGame'))
      : t('table.leaveConfirm');
    if (!(await confirmDialog(text, inGame ? t('table.escapeOk') : t('table.leaveOk'), t('common.cancel')))) return;
    if (S.ws && S.ws.readyState === WebSocket.OPEN) {
      send({ type: 'leave', id: 'leave' });
    } else if (S.mine) {
      try {
        await api.leaveTable(tableId, S.mine.token);
      } catch (_) { /* the token may be spent already */ }
      api.forgetSeat(tableId);
      S.mine = null;
      S.mode = 'gone';
      S.goneReason = inGame ? 'escaped' : 'left';
      build();
    }
  }

  function quickPlay(i) {
    if (!myPlayTurn() || S.pending) return;
    const code = handCards()[i];
    const l = legal();
    const list = (l.follows || l.leads || []).map(parseCards).filter((p) => p.includes(code));
    if (!list.length) return;
    const min = Math.min(...list.map((p) => p.length));
    const smallest = list.filter((p) => p.length === min);
    const unique = smallest.filter((p, k) => smallest.findIndex((q) => sameCards(p, q)) === k);
    if (unique.length !== 1) return;
    const cards = handCards();
    // select it so that the player sees what goes, then send
    S.sel.clear();
    const want = [...unique[0]];
    cards.forEach((c, k) => { const j = want.indexOf(c); if (j >= 0) { want.splice(j, 1); S.sel.add(k); } });
    act({ a: 'play', cards: unique[0].join(' ') });
  }

  // ------------------------------------------------------------------ playability
  function playableSet() {
    const cards = handCards();
    const res = cards.map(() => true);
    if (!myPlayTurn()) return res;
    const l = legal();
    const sel = selectedCodes();
    let options = null;
    if (l.follows) {
      if (l.more) return res;
      options = l.follows.map(parseCards);
    } else if (l.leads) {
      if (l.throws) return res;
      options = l.leads.map(parseCards);
    }
    if (!options) return res;
    cards.forEach((c, i) => {
      if (S.sel.has(i)) return;
      const cand = sel.concat([c]);
      res[i] = options.some((o) => containsAll(o, cand));
    });
    return res;
  }

  function kittyMarks() {
    // which cards of the hand came from the kitty: the latest kitty_taken event for this seat
    const v = S.view;
    if (!v || !legal().bury) return [];
    for (let i = S.events.length - 1; i >= 0; i--) {
      const e = S.events[i];
      if (e.e === 'kitty_taken' && e.p === mySeat() && e.cards) return parseCards(e.cards);
    }
    return [];
  }

  // ------------------------------------------------------------------ DOM skeleton
  let R = {}; // regions

  function build() {
    page.replaceChildren();
    R = { sig: {} };
    page.className = 'table-page mode-' + S.mode;
    if (S.mode === 'loading') {
      page.appendChild(el('div', { class: 'page-message' }, el('p', { text: t('common.loading') })));
      return;
    }
    if (S.mode === 'join') { buildJoin(); return; }
    if (S.mode === 'gone') { buildGone(); return; }

    R.top = el('div', { class: 'tbl-top' });
    R.info = el('div', { class: 'tbl-info' });
    R.felt = el('div', { class: 'felt' });
    R.side = el('aside', { class: 'tbl-side' });
    R.actions = el('div', { class: 'tbl-actions' });
    R.hand = el('div', { class: 'hand', testid: 'hand', role: 'group' });
    R.overlay = el('div', { class: 'tbl-overlays' });
    const grid = el('div', { class: 'tbl-grid' }, R.info, R.felt, R.side, R.actions, R.hand);
    page.append(R.top, grid, R.overlay);
    render();
    if (typeof ResizeObserver !== 'undefined') {
      if (R.ro) R.ro.disconnect();
      let lastW = 0;
      const ro = new ResizeObserver(() => {
        const w = R.hand ? R.hand.clientWidth : 0;
        if (Math.abs(w - lastW) > 2) { lastW = w; renderHand(); }
      });
      ro.observe(R.hand);
      R.ro = ro;
    }
  }

  function paintConn() {
    const dot = page.querySelector('[data-testid="connection-state"]');
    if (!dot) return;
    const state = S.conn;
    dot.dataset.state = state;
    dot.title = t(`conn.${state}`);
    const label = dot.querySelector('.conn-label');
    if (label) label.textContent = t(`conn.${state}`);
  }

  // ------------------------------------------------------------------ join / gone
  function buildJoin() {
    const s = S.summary;
    const box = el('div', { class: 'join-panel panel' });
    page.appendChild(box);
    if (!s) {
      box.appendChild(el('p', { text: S.joinError || t('common.loading') }));
      if (S.joinError) box.appendChild(el('a', { href: '/', 'data-link': '', class: 'btn', text: t('nav.backToLobby') }));
      return;
    }
    box.appendChild(el('h2', { class: 'panel-title', text: s.name || t('lobby.tableNo', { id: s.id }) }));
    box.appendChild(el('p', { class: 'muted' }, el('span', { class: 'tag room-tag', text: roomName(s.room) }), ' ', el('span', { class: 'tag status-tag status-' + s.status, text: t(`status.${s.status}`) })));
    if (s.status !== 'waiting') {
      box.appendChild(el('p', { class: 'notice big', testid: 'no-seat', text: s.status === 'finished' ? t('join.finished') : t('join.started') }));
      box.appendChild(el('a', { href: '/', 'data-link': '', class: 'btn primary', text: t('nav.backToLobby') }));
      return;
    }
    const name = el('input', { type: 'text', maxlength: '24', testid: 'player-name', placeholder: t('lobby.namePlaceholder') });
    name.value = api.defaultName(t('lobby.defaultNamePrefix'));
    box.appendChild(el('label', { class: 'field' }, el('span', { class: 'field-label', text: t('lobby.yourName') }), name));
    const list = el('div', { class: 'join-seats' });
    s.seats.forEach((seat, n) => {
      const row = el('div', { class: 'join-seat' + (seat ? ' taken' : ' free'), testid: 'seat-' + n },
        el('span', { class: 'seat-chip-no', text: String(n) }),
        el('span', { class: 'join-seat-name', text: seat ? seat.name : t('seat.free') }),
        seat && seat.kind === 'bot' ? el('span', { class: 'tag bot-tag', text: t(`bot.short.${(seat.bot || 'rules')}`) }) : null);
      if (!seat) {
        row.appendChild(el('button', { type: 'button', class: 'btn primary', testid: 'sit-' + n, disabled: S.joinBusy, text: t('join.sitHere'), onclick: async () => {
          const nm = name.value.trim();
          if (!nm) { S.joinError = t('lobby.nameRequired'); build(); return; }
          S.joinBusy = true;
          try {
            const res = await api.sitAt(tableId, nm, n);
            S.mine = { token: res.token, seat: res.seat, name: nm };
            S.mode = 'loading';
            build();
            connect();
          } catch (e) {
            S.joinBusy = false;
            S.joinError = e.message;
            refreshSummary();
          }
        } }));
        const sel = el('select', { class: 'small-select', 'aria-label': t('lobby.botStrength') });
        for (const b of ['rules', 'random', 'search']) sel.appendChild(el('option', { value: b, text: t(`bot.level.${b}`) }));
        row.appendChild(el('span', { class: 'add-bot' }, sel, el('button', { type: 'button', class: 'btn', testid: 'add-bot-' + n, text: t('lobby.addBot'), onclick: async () => {
          try { await api.takeSeat(tableId, { bot: sel.value, seat: n }); } catch (e) { S.joinError = e.message; }
          refreshSummary();
        } })));
      }
      list.appendChild(row);
    });
    box.appendChild(list);
    if (S.joinError) box.appendChild(el('p', { class: 'form-error', text: S.joinError }));
    box.appendChild(inviteBox());
  }

  async function refreshSummary() {
    try {
      S.summary = await api.getTable(tableId);
      S.joinError = S.joinError && S.summary ? S.joinError : '';
    } catch (e) {
      S.summary = null;
      S.joinError = e.status === 404 ? t('join.noTable') : e.message;
    }
    S.joinBusy = false;
    if (!disposed && S.mode === 'join') build();
  }

  function buildGone() {
    const reason = S.goneReason || 'left';
    const box = el('div', { class: 'page-message', testid: 'gone' },
      el('p', { class: 'big', text: t(`gone.${reason}`) }),
      el('a', { href: '/', 'data-link': '', class: 'btn primary', testid: 'lobby-link', text: t('nav.backToLobby') }));
    page.appendChild(box);
    // the connection state stays visible for tests and for the player
    page.appendChild(el('span', { class: 'conn-dot hidden-conn', testid: 'connection-state', 'data-state': 'closed' }));
  }

  function inviteBox() {
    const url = location.origin + '/t/' + tableId;
    const copy = el('button', { type: 'button', class: 'btn small', testid: 'copy-invite', text: S.copyOk ? t('invite.copied') : t('invite.copy') });
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(url);
      } catch (_) {
        const ta = el('textarea', {});
        ta.value = url;
        document.body.appendChild(ta);
        ta.select();
        try { document.execCommand('copy'); } catch (__) { /* ignore */ }
        ta.remove();
      }
      S.copyOk = true;
      copy.textContent = t('invite.copied');
      setTimeout(() => { S.copyOk = false; }, 2000);
    });
    return el('div', { class: 'invite' },
      el('span', { class: 'invite-label', text: t('invite.label') }),
      el('a', { href: url, class: 'invite-link', testid: 'invite-link', text: url }),
      copy);
  }

  // ------------------------------------------------------------------ render (play mode)
  function render() {
    if (disposed || S.mode !== 'play' || !R.top) return;
    const v = S.view;
    page.dataset.seq = String(S.seq);
    page.dataset.hand = String(S.hand);
    page.dataset.seat = String(mySeat());
    page.dataset.phase = v ? v.phase : (S.status || '');
    renderTop();
    renderInfo();
    renderFelt();
    renderSide();
    renderActions();
    renderHand();
    renderOverlays();
    updateCountdowns();
  }

  /** Whether a region's inputs are what they were when it was last drawn (then it is left alone, so that a
   * button the player is pressing is not replaced under the finger by an update that does not concern it). */
  const getLangSig = () => getLang();

  function unchanged(region, inputs) {
    const key = JSON.stringify(inputs);
    if (R.sig && R.sig[region] === key) return true;
    if (R.sig) R.sig[region] = key;
    return false;
  }

  function seatsSig() {
    return S.seats.map((x) => (x ? [x.name, x.kind, x.bot, x.auto, x.connected] : null));
  }

  function renderTop() {
    {
      const v0 = S.view;
      if (unchanged('top', [getLangSig(), S.tableName, S.rules, !!S.rulesFull, v0 && v0.phase, S.status, S.conn, S.showLast, S.logOpen,
        seatsSig(), v0 && v0.tricks && v0.tricks.length > 0])) return;
    }
    const v = S.view;
    R.top.replaceChildren();
    const phaseKey = v ? 'phase.' + v.phase : S.status === 'waiting' ? 'phase.waiting' : 'phase.none';
    const phase = el('span', { class: 'phase-pill', testid: 'phase', 'data-phase': v ? v.phase : (S.status === 'waiting' ? 'waiting' : '') , text: t(phaseKey) });
    const conn = el('span', { class: 'conn-dot', testid: 'connection-state', 'data-state': S.conn, title: t(`conn.${S.conn}`) }, el('span', { class: 'conn-label', text: t(`conn.${S.conn}`) }));
    const title = el('div', { class: 'tbl-title' },
      el('span', { class: 'tbl-name', text: S.tableName || t('lobby.tableNo', { id: tableId }) }),
      S.rules ? el('span', { class: 'tag room-tag', text: roomName(S.rulesFull ? roomFromSpec() : S.rules.preset) }) : null,
      phase, conn);
    const me = mySeat();
    const auto = me !== null && isAuto(me);
    const tools = el('div', { class: 'tbl-tools' },
      el('button', { type: 'button', class: 'tool-btn last-btn', testid: 'last-trick-button', 'aria-pressed': S.showLast ? 'true' : 'false', disabled: !(v && v.tricks && v.tricks.length), onclick: () => { S.showLast = !S.showLast; render(); } }, [el('span', { class: 'lbl-long', text: t('table.lastTrick') }), el('span', { class: 'lbl-short', text: t('table.lastTrickShort') })]),
      el('button', { type: 'button', class: 'tool-btn log-btn', 'aria-pressed': S.logOpen ? 'true' : 'false', onclick: () => {
        S.logOpen = !S.logOpen;
        render();
      } }, t('table.log')),
      el('button', { type: 'button', class: 'tool-btn auto-btn' + (auto ? ' on' : ''), testid: 'auto-toggle', 'aria-pressed': auto ? 'true' : 'false', disabled: S.status === 'waiting', onclick: toggleAuto }, [el('span', { class: 'lbl-long', text: auto ? t('table.autoOn') : t('table.autoOff') }), el('span', { class: 'lbl-short', text: auto ? t('table.autoOnShort') : t('table.autoOffShort') })]),
      el('button', { type: 'button', class: 'tool-btn leave-btn', testid: 'leave-button', onclick: doLeave }, [el('span', { class: 'lbl-long', text: S.status === 'playing' ? t('table.escape') : t('table.leave') }), el('span', { class: 'lbl-short', text: S.status === 'playing' ? t('table.escapeShort') : t('table.leaveShort') })]),
      el('button', { type: 'button', class: 'tool-btn help-btn', testid: 'help-button', 'aria-label': t('help.title'), text: '?', onclick: () => { S.helpOpen = !S.helpOpen; render(); } }));
    R.top.append(title, tools);
  }

  function roomFromSpec() {
    if (!S.rules) return '';
    return S.rules.preset + (S.rules.set && Object.keys(S.rules.set).length ? '+' : '');
  }

  function renderInfo() {
    {
      const v0 = S.view;
      if (unchanged('info', [getLangSig(), v0 && [v0.trump, v0.level, v0.dealer, v0.points, v0.tricks && v0.tricks.length], S.game,
        S.rulesFull && [S.rulesFull.circles, S.rulesFull.flag_threshold], seatsSig(), mySeat()])) return;
    }
    const v = S.view;
    const g = S.game;
    R.info.replaceChildren();
    const me = mySeat();
    // trump and level
    const trumpBox = el('div', { class: 'info-card trump-info', testid: 'trump-info', 'data-trump': v && v.trump ? v.trump : '', 'data-level': v ? v.level : '' },
      el('div', { class: 'info-row' },
        el('span', { class: 'info-label', text: t('info.trump') }),
        v ? trumpEl(v.phase === 'deal' || v.phase === 'countdown' ? v.trump : v.trump, true) : el('span', { class: 'muted', text: '—' })),
      el('div', { class: 'info-row' },
        el('span', { class: 'info-label', text: t('info.level') }),
        el('span', { class: 'level-val', text: v ? levelText(v.level) : '—' })),
      el('div', { class: 'info-row' },
        el('span', { class: 'info-label', text: t('info.dealer') }),
        el('span', { class: 'dealer-val', text: v && v.dealer !== null && v.dealer !== undefined ? seatName(v.dealer) : t('info.undecided') })));
    R.info.appendChild(trumpBox);

    // points of the scoring side
    const dt = dealerTeam();
    const pts = v ? v.points : 0;
    const ptsBox = el('div', { class: 'info-card points-card' + (dt !== null && dt !== team(me) ? ' mine' : '') },
      el('div', { class: 'info-label', text: dt === null ? t('info.scoringPoints') : (team(me) === dt ? t('info.theirPoints') : t('info.ourPoints')) }),
      el('div', { class: 'points-line' },
        el('span', { class: 'points-num' + (pts >= threshold() ? ' reached' : ''), testid: 'points', text: String(pts) }),
        el('span', { class: 'points-of', text: '/' + threshold() })));
    const pc = pointCards();
    if (pc.length) ptsBox.appendChild(el('div', { class: 'point-cards', title: t('info.pointCards') }, miniCards(pc.join(' '))));
    R.info.appendChild(ptsBox);

    // levels, credits, game/hand numbers
    if (g) {
      const lv = el('div', { class: 'info-card levels-card' });
      const circles = S.rulesFull && S.rulesFull.circles > 1;
      for (const tm of [team(me), 1 - team(me)]) {
        const L = g.levels[tm];
        const row = el('div', { class: 'info-row team-' + tm + (dt === tm ? ' dealer-side' : '') },
          el('span', { class: 'info-label', text: tm === team(me) ? t('info.us') : t('info.them') }),
          el('span', { class: 'level-val' }, levelText(L.level), circles ? el('small', { text: ' ' + t('info.circle', { n: L.circle }) }) : null),
          g.credits ? el('span', { class: 'credits', title: t('info.credits'), text: t('info.creditsShort', { n: g.credits[tm] }) }) : null,
          dt === tm ? el('span', { class: 'tag dealer-tag', text: t('seat.dealerShort') }) : null);
        lv.appendChild(row);
      }
      lv.appendChild(el('div', { class: 'info-foot muted', text: t('info.gameHand', { game: g.number, hand: g.hands }) }));
      R.info.appendChild(lv);
    }
  }

  function pointCards() {
    const v = S.view;
    if (!v || v.dealer === null || v.dealer === undefined || !v.tricks) return [];
    const dt = team(v.dealer);
    const out = [];
    for (const tr of v.tricks) {
      if (team(tr.winner) === dt) continue;
      for (const [, cards] of tr.plays) for (const c of parseCards(cards)) if (cardPoints(c)) out.push(c);
    }
    const order = { '5': 0, T: 1, K: 2 };
    return out.sort((a, b) => order[cardRank(a)] - order[cardRank(b)]);
  }

  function latestBid(n) {
    const v = S.view;
    if (!v || !v.bids) return null;
    for (let i = v.bids.length - 1; i >= 0; i--) if (v.bids[i].player === n) return v.bids[i];
    return null;
  }

  function seatBox(n) {
    const v = S.view;
    const s = S.seats[n];
    const me = mySeat();
    const r = rel(n);
    const acting = (v && v.to_act === n) || (S.deadline && S.deadline.seat === n);
    const dt = dealerTeam();
    const box = el('div', { class: `seat pos-${POS[r]} team-${team(n)}` + (acting ? ' acting' : '') + (n === me ? ' me' : '') + (!s ? ' empty' : ''), testid: 'seat-' + n, 'data-seat': String(n) });
    if (!s) {
      box.append(el('div', { class: 'seat-name', text: t('seat.free') }), el('div', { class: 'seat-role muted', text: t(`seat.role.${r}`) }));
      if (S.status === 'waiting') {
        const sel = el('select', { class: 'small-select', 'aria-label': t('lobby.botStrength') });
        for (const b of ['rules', 'random', 'search']) sel.appendChild(el('option', { value: b, text: t(`bot.level.${b}`) }));
        box.appendChild(el('div', { class: 'add-bot' }, sel, el('button', { type: 'button', class: 'btn small', testid: 'add-bot-' + n, text: t('lobby.addBot'), onclick: async () => {
          try { await api.takeSeat(tableId, { bot: sel.value, seat: n }); } catch (e) { showToast(e.message); }
        } })));
      }
      return box;
    }
    const head = el('div', { class: 'seat-head' },
      el('span', { class: 'avatar team-' + team(n), text: (s.name || '?').slice(0, 1).toUpperCase() }),
      el('span', { class: 'seat-name', title: s.name, text: n === me ? t('table.youNamed', { name: s.name }) : s.name }));
    box.appendChild(head);
    const tags = el('div', { class: 'seat-tags' });
    if (v && v.dealer === n) tags.appendChild(el('span', { class: 'tag dealer-tag', title: t('seat.dealer'), text: t('seat.dealerShort') }));
    tags.appendChild(el('span', { class: 'tag team-tag team-' + team(n), text: dt === null ? (team(n) === team(me) ? t('info.us') : t('info.them')) : (team(n) === dt ? t('side.dealer') : t('side.scoring')) }));
    if (n !== me) tags.appendChild(el('span', { class: 'seat-role', text: t(`seat.role.${r}`) }));
    if (v && v.hand_sizes) tags.appendChild(el('span', { class: 'card-count', title: t('seat.cardsLeft'), 'data-count': String(v.hand_sizes[n]) }, el('span', { class: 'mini-back' }), String(v.hand_sizes[n])));
    box.appendChild(tags);
    const badges = el('div', { class: 'seat-badges' });
    if (s.kind === 'bot' && !hasLeft(n)) badges.appendChild(el('span', { class: 'tag bot-tag', text: t(`bot.short.${(s.bot || 'rules')}`) }));
    if (s.auto) badges.appendChild(el('span', { class: 'tag auto-tag', testid: 'seat-auto-' + n, text: t('seat.auto') }));
    if (s.kind === 'player' && s.connected === false) badges.appendChild(el('span', { class: 'tag off-tag', text: t('seat.offline') }));
    if (hasLeft(n)) badges.appendChild(el('span', { class: 'tag left-tag', text: t('seat.left') }));
    if (S.game && S.game.seat_credits) badges.appendChild(el('span', { class: 'tag credit-tag', title: t('info.credits'), text: t('info.creditsShort', { n: S.game.seat_credits[n] }) }));
    if (badges.childNodes.length) box.appendChild(badges);
    // the seat's bid during the deal and frying
    if (v && ['deal', 'countdown', 'bury', 'fry'].includes(v.phase)) {
      const b = latestBid(n);
      if (b) {
        const bid = el('div', { class: 'seat-bid' + (b.valid === false ? ' void' : '') },
          el('span', { class: 'seat-bid-word', text: b.fry ? t('bid.fry') : t('bid.bid') }));
        if (b.cards) {
          bid.appendChild(miniCards(b.cards));
          if (b.choose) bid.appendChild(el('span', { class: 'choose' }, '→', trumpEl(b.choose)));
        } else bid.appendChild(el('span', { class: 'dark-word', text: t('bid.dark') }));
        box.appendChild(bid);
      }
    }
    if (acting && S.deadline && S.deadline.seat === n) {
      box.appendChild(el('div', { class: 'seat-timer', 'data-countdown': 'seat' }));
    }
    return box;
  }

  function renderFelt() {
    {
      const v0 = S.view;
      if (unchanged('felt', [getLangSig(), seatsSig(), S.status, mySeat(), S.copyOk, S.deadline && [S.deadline.seat, S.deadline.kind],
        S.game && S.game.seat_credits,
        v0 && [v0.phase, v0.dealer, v0.to_act, v0.hand_sizes, v0.bids, v0.current_trick, v0.left, v0.level, v0.trump,
          v0.tricks && v0.tricks.length, v0.tricks && v0.tricks.length ? v0.tricks[v0.tricks.length - 1] : null]])) return;
    }
    const v = S.view;
    R.felt.replaceChildren();
    const me = mySeat();
    for (let k = 0; k < 4; k++) R.felt.appendChild(seatBox((me + k) % 4));
    // the trick in the middle: the current one (data-testid current-trick, only its plays), or,
    // between the last card of a trick and the next lead, the finished one, in an element of its own
    const center = el('div', { class: 'center' });
    const current = v && v.phase === 'play' && v.current_trick ? v.current_trick : [];
    const finished = !current.length && v && (v.phase === 'play' || v.phase === 'over') && v.tricks && v.tricks.length
      ? v.tricks[v.tricks.length - 1] : null;
    const trick = trickEl(current, null, v ? v.tricks.length : 0);
    trick.dataset.testid = 'current-trick';
    center.appendChild(trick);
    if (finished) {
      const done = trickEl(finished.plays, finished, v.tricks.length - 1);
      done.dataset.testid = 'finished-trick';
      done.classList.add('finished');
      center.appendChild(done);
    }
    const note = centerNote();
    if (note) center.appendChild(note);
    R.felt.appendChild(center);
  }

  /** A trick's plays laid out round the middle; the slots are in play order (the lead first), placed by CSS. */
  function trickEl(plays, finished, trickNo) {
    const v = S.view;
    const me = mySeat();
    const trick = el('div', { class: 'trick', 'data-count': String(plays.length), 'data-finished': finished ? 'true' : 'false' });
    const leader = plays.length ? plays[0][0] : null;
    const order = plays.map(([p]) => p);
    for (let k = 0; k < 4; k++) if (!order.includes((me + k) % 4)) order.push((me + k) % 4);
    const bySeat = new Map(plays.map(([p, c]) => [p, c]));
    for (const n of order) {
      const slot = el('div', { class: 'slot slot-' + POS[rel(n)], 'data-seat': String(n) });
      if (bySeat.has(n)) {
        slot.dataset.seatPlay = String(n);
        const cards = parseCards(bySeat.get(n));
        const playKey = `${S.hand}:${trickNo}:${n}`;
        const fresh = !S.seenPlays.has(playKey);
        S.seenPlays.add(playKey);
        const row = el('div', { class: 'cards-row trick-cards' + (cards.length > 4 ? ' fan' : '') + (fresh ? ' fresh' : '') });
        for (const c of cards) row.appendChild(cardEl(c, { small: true, level: v.level, trump: v.trump }));
        slot.appendChild(row);
        if (n === leader) slot.appendChild(el('span', { class: 'slot-tag lead-tag', text: t('trick.lead') }));
        if (finished && finished.winner === n) {
          slot.classList.add('winner');
          slot.appendChild(el('span', { class: 'slot-tag win-tag', text: finished.points ? t('trick.wonPoints', { n: finished.points }) : t('trick.won') }));
        } else if (!finished && plays.length > 1 && v.winning === n) {
          // the server says whose play is winning the trick so far (the view's `winning`)
          slot.classList.add('winning');
          slot.dataset.winning = 'true';
          slot.appendChild(el('span', { class: 'slot-tag win-tag', text: t('trick.winning') }));
        }
      }
      trick.appendChild(slot);
    }
    return trick;
  }

  function centerNote() {
    const v = S.view;
    if (S.status === 'waiting' || !v) {
      const taken = S.seats.filter(Boolean).length;
      return el('div', { class: 'center-note waiting-note' },
        el('p', { class: 'big', text: t('table.waitingFor', { n: taken }) }),
        el('p', { class: 'muted', text: t('table.waitingHint') }),
        inviteBox());
    }
    if (v.phase === 'deal') {
      const total = v.hand_sizes ? v.hand_sizes.reduce((a, b) => a + b, 0) : 0;
      return el('div', { class: 'center-note small-note' }, el('span', { text: t('table.dealing', { n: total }) }));
    }
    if (v.phase === 'countdown') {
      return el('div', { class: 'center-note countdown-note' },
        el('span', { text: t('table.countdownNote') }),
        el('span', { class: 'big-count', 'data-countdown': 'big' }));
    }
    if (v.phase === 'redeal') {
      return el('div', { class: 'center-note redeal-note', testid: 'redeal-notice' }, el('p', { class: 'big', text: t('table.redeal') }));
    }
    if (v.phase === 'bury' && v.to_act !== mySeat()) {
      return el('div', { class: 'center-note small-note' }, el('span', { text: t('table.othersBury', { name: seatName(v.to_act) }) }));
    }
    if (v.phase === 'fry' && v.to_act !== mySeat()) {
      return el('div', { class: 'center-note small-note' }, el('span', { text: t('table.othersFry', { name: seatName(v.to_act) }) }));
    }
    return null;
  }

  function renderSide() {
    {
      const v0 = S.view;
      const shown = S.events.filter((e) => e.e !== 'dealt').length;
      if (unchanged('side', [getLangSig(), seatsSig(), mySeat(), S.logOpen, S.showLast, shown, S.eventsHand,
        v0 && [v0.phase, v0.bids, v0.kitty, v0.tricks && v0.tricks.length, v0.tricks && v0.tricks.length ? v0.tricks[v0.tricks.length - 1] : null]])) return;
    }
    const v = S.view;
    R.side.replaceChildren();
    // on a phone the side is a sheet over the table: its close button
    R.side.appendChild(el('button', { type: 'button', class: 'sheet-close btn small', text: t('common.close'), onclick: () => { S.logOpen = false; S.showLast = false; render(); } }));
    // last trick
    const last = v && v.tricks && v.tricks.length ? v.tricks[v.tricks.length - 1] : null;
    const lastBox = el('div', { class: 'side-card last-trick' + (S.showLast ? ' open' : ''), testid: 'last-trick' },
      el('div', { class: 'side-title' }, el('span', { text: t('table.lastTrickTitle') }),
        el('button', { type: 'button', class: 'close-x', 'aria-label': t('common.close'), text: '×', onclick: () => { S.showLast = false; render(); } })));
    if (last) {
      const list = el('div', { class: 'last-plays' });
      for (const [p, cards] of last.plays) {
        list.appendChild(el('div', { class: 'last-play' + (p === last.winner ? ' winner' : ''), 'data-seat': String(p) },
          el('span', { class: 'last-name', text: seatName(p) }),
          miniCards(cards),
          p === last.winner ? el('span', { class: 'win-mark', text: t('trick.won') }) : null));
      }
      lastBox.appendChild(list);
      lastBox.appendChild(el('div', { class: 'muted small-text', text: t('trick.summary', { name: seatName(last.winner), n: last.points, k: v.tricks.length }) }));
    } else lastBox.appendChild(el('p', { class: 'muted small-text', text: t('table.noTrickYet') }));
    R.side.appendChild(lastBox);

    // bids
    if (v && v.bids && v.bids.length) {
      const bids = el('div', { class: 'side-card bids-card' }, el('div', { class: 'side-title', text: t('table.bidsTitle') }));
      for (const b of v.bids) {
        bids.appendChild(el('div', { class: 'bid-line' + (b.valid === false ? ' void' : '') },
          el('span', { class: 'bid-who', text: seatName(b.player) }),
          el('span', { class: 'bid-kind', text: b.fry ? t('bid.fry') : t('bid.bid') }),
          b.cards ? miniCards(b.cards) : el('span', { class: 'dark-word', text: t('bid.dark') }),
          b.choose ? el('span', { class: 'choose' }, '→', trumpEl(b.choose)) : null,
          b.valid === false ? el('span', { class: 'tag void-tag', text: t('bid.void') }) : null));
      }
      R.side.appendChild(bids);
    }
    // my kitty (the cards I buried)
    if (v && v.kitty && v.phase !== 'over') {
      R.side.appendChild(el('div', { class: 'side-card kitty-card' }, el('div', { class: 'side-title', text: t('table.myKitty') }), miniCards(v.kitty)));
    }
    // log
    const log = el('details', { class: 'side-card log-card', open: S.logOpen });
    log.addEventListener('toggle', () => { S.logOpen = log.open; });
    log.appendChild(el('summary', { class: 'side-title', text: t('table.logTitle', { n: S.events.filter((e) => e.e !== 'dealt').length }) }));
    const list = el('ol', { class: 'log-list', testid: 'event-log' });
    for (const e of S.events) {
      if (e.e === 'dealt') continue;
      list.appendChild(el('li', { class: 'log-' + e.e }, eventLine(e)));
    }
    log.appendChild(list);
    R.side.appendChild(log);
    if (S.logOpen) requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
  }

  function eventLine(e) {
    const name = e.p !== undefined && e.p !== null ? seatName(e.p) : '';
    const params = { name, cards: e.cards || '', points: e.points || 0, detail: e.detail || '' };
    let key = 'ev.' + e.e;
    if (e.e === 'bid' || e.e === 'fried') {
      if (!e.cards) key += '.dark';
      else if (e.detail) { key += '.choose'; params.trump = has(`trump.${e.detail}`) ? t(`trump.${e.detail}`) : t(`suit.${e.detail}`); }
    }
    if (e.e === 'trick' && e.points) key = 'ev.trick.points';
    if (e.e === 'frying_over') params.trump = e.detail || '';
    const line = richText(has(key) ? key : 'ev.unknown', { ...params, kind: e.e });
    if (e.valid === false) line.appendChild(el('span', { class: 'tag void-tag', text: t('bid.void') }));
    if ((e.e === 'settled' || e.e === 'left' || e.e === 'frying_over' || e.e === 'kitty_trump') && e.detail) line.title = e.detail;
    return line;
  }

  function renderActions() {
    {
      const v0 = S.view;
      const ti0 = turnInfo();
      const lastThrow = S.events.map((e) => e.e).lastIndexOf('throw_failed');
      const tricksAfter = lastThrow >= 0 ? S.events.slice(lastThrow).filter((e) => e.e === 'trick').length : -1;
      if (unchanged('actions', [getLangSig(), ti0, turnText(ti0), S.deadline && [S.deadline.kind, S.deadline.seat], S.status,
        mySeat() !== null && isAuto(mySeat()), S.error, S.toast && S.toast.text, lastThrow, tricksAfter, S.dismissedThrow,
        S.events.length > lastThrow + 1 && lastThrow >= 0 ? S.events.slice(lastThrow, lastThrow + 3) : null,
        v0 && [v0.phase, v0.legal, v0.bids && v0.bids.some((b) => b.valid !== false)], [...S.sel].sort((a, b) => a - b), S.pending])) return;
    }
    const v = S.view;
    const l = legal();
    R.keepNext = new Map();
    R.actions.replaceChildren();
    const me = mySeat();
    const ti = turnInfo();

    // the turn line (the banner when it is this player's turn)
    const line = el('div', { class: 'turn-line' + (ti.mine ? ' mine' : '') });
    if (ti.mine) {
      line.dataset.testid = 'turn-banner';
      line.dataset.kind = ti.kind;
    }
    line.appendChild(el('span', { class: 'turn-text', text: turnText(ti) }));
    if (S.deadline) {
      line.appendChild(el('span', { class: 'deadline', testid: 'deadline', 'data-kind': S.deadline.kind, 'data-countdown': 'main', title: has(`deadline.${S.deadline.kind}`) ? t(`deadline.${S.deadline.kind}`) : '' }));
    }
    R.actions.appendChild(line);

    // 托管 banner
    if (me !== null && isAuto(me) && S.status === 'playing') {
      R.actions.appendChild(el('button', { type: 'button', class: 'auto-banner', testid: 'auto-banner', text: t('table.autoBanner'), onclick: () => send({ type: 'auto', on: false, id: 'auto' }) }));
    }
    // the engine's refusal
    if (S.error) {
      R.actions.appendChild(el('div', { class: 'error-banner', testid: 'error-banner', role: 'alert' },
        el('span', { text: S.error.text }),
        el('button', { type: 'button', class: 'close-x', 'aria-label': t('common.close'), text: '×', onclick: () => { S.error = null; render(); } })));
    }
    if (S.toast) R.actions.appendChild(el('div', { class: 'toast', role: 'status', text: S.toast.text }));
    const tf = throwFailedNotice();
    if (tf) R.actions.appendChild(tf);

    const bar = el('div', { class: 'action-bar' });
    const disabled = S.pending;
    // bids
    if (l.bids && l.bids.length) {
      const box = el('div', { class: 'options bid-buttons', testid: 'bid-buttons' },
        el('span', { class: 'options-label', text: v.bids && v.bids.some((b) => b.valid !== false) ? t('table.overrideWith') : t('table.declareWith') }));
      l.bids.forEach((opt, k) => box.appendChild(optionButton(opt, k, 'bid-option', () => doBid(opt), disabled)));
      bar.appendChild(box);
    }
    // fries
    if (l.pass || (l.fries && l.fries.length)) {
      const box = el('div', { class: 'options fry-options' },
        el('span', { class: 'options-label', text: (l.fries && l.fries.length) ? t('table.fryWith') : t('table.cannotFry') }));
      (l.fries || []).forEach((opt, k) => box.appendChild(optionButton(opt, k, 'fry-option', () => doBid(opt, true), disabled)));
      if (l.pass) box.appendChild(keptButton('pass', { class: 'btn pass-btn', testid: 'pass-button', title: 'P' }, t('table.pass'), doPass, disabled));
      bar.appendChild(box);
    }
    // show 5h 5h
    if (l.show_red5) {
      bar.appendChild(el('button', { type: 'button', class: 'btn gold', testid: 'show-red5-button', disabled, text: t('table.showRed5'), onclick: () => act({ a: 'show_red5' }) }));
    }
    // bury
    if (l.bury) {
      const n = S.sel.size;
      bar.appendChild(el('div', { class: 'bury-box' },
        el('span', { class: 'counter' + (n === l.bury ? ' full' : ''), testid: 'bury-counter', text: t('table.buryCount', { n, total: l.bury }) }),
        el('button', { type: 'button', class: 'btn small ghost', disabled: !n, text: t('table.clear'), onclick: clearSel }),
        keptButton('bury', { class: 'btn primary big', testid: 'bury-button' }, t('table.bury'), doBury, disabled || n !== l.bury)));
    }
    // play
    if (myPlayTurn()) {
      const sel = selectedCodes();
      const isThrow = isThrowSelection(sel);
      bar.appendChild(el('div', { class: 'play-box' },
        sel.length ? el('button', { type: 'button', class: 'btn small ghost', text: t('table.clear'), onclick: clearSel }) : null,
        el('span', { class: 'play-hint muted', text: sel.length ? (isThrow ? t('table.throwHint') : t('table.selectedN', { n: sel.length })) : (l.follows ? t('table.followHint') : t('table.leadHint')) }),
        keptButton(isThrow ? 'throw' : 'play', { class: 'btn primary big' + (isThrow ? ' warn' : ''), testid: 'play-button' }, isThrow ? t('table.throw') : t('table.play'), doPlay, disabled || !sel.length)));
    }
    if (bar.childNodes.length) R.actions.appendChild(bar);
    R.keep = R.keepNext;
    R.keepNext = null;
  }

  /** The action buttons are kept from one drawing to the next while they mean the same thing: a button the
   * player is about to press stays the same element when an update (a dealt card, another bid) redraws the bar. */
  function kept(key, make) {
    const fullKey = getLang() + '|' + key;
    let node = R.keep && R.keep.get(fullKey);
    if (!node) node = make();
    if (R.keepNext) R.keepNext.set(fullKey, node);
    return node;
  }

  function optionButton(opt, k, testid, onclick, disabled) {
    const b = kept(`${testid}|${opt.cards}|${opt.choose || ''}`, () => {
      const btn = el('button', { type: 'button', class: 'btn option-btn', testid, 'data-cards': opt.cards, 'data-choose': opt.choose || '' },
        el('kbd', { class: 'opt-key' }),
        miniCards(opt.cards));
      if (opt.choose) btn.appendChild(el('span', { class: 'choose' }, '→', trumpEl(opt.choose)));
      btn.addEventListener('click', onclick);
      btn.setAttribute('aria-label', cardsName(opt.cards) + (opt.choose ? ' → ' + (opt.choose === 'nt' ? t('trump.nt') : t(`suit.${opt.choose}`)) : ''));
      return btn;
    });
    b.disabled = !!disabled;
    const kbd = b.querySelector('.opt-key');
    kbd.textContent = k < 9 ? String(k + 1) : '';
    kbd.hidden = k >= 9;
    b.title = k < 9 ? String(k + 1) : '';
    return b;
  }

  function keptButton(key, attrs, text, onclick, disabled) {
    const b = kept(key, () => el('button', { type: 'button', ...attrs, onclick }));
    b.textContent = text;
    b.disabled = !!disabled;
    return b;
  }

  function turnText(ti) {
    const v = S.view;
    const g = S.game;
    if (S.status === 'waiting' || !v) return t('turn.waitingPlayers');
    if (g && g.over) return t('turn.gameOver');
    if (ti.mine) {
      if (ti.kind === 'play') return legal().follows ? t('turn.youFollow') : t('turn.youLead');
      return t(`turn.you.${ti.kind}`);
    }
    switch (v.phase) {
      case 'deal': return legal().bids && legal().bids.length ? t('turn.dealCanBid') : t('turn.deal');
      case 'countdown': return t('turn.countdown');
      case 'bury': return t('turn.othersBury', { name: seatName(v.to_act) });
      case 'fry': return t('turn.othersFry', { name: seatName(v.to_act) });
      case 'play': return t('turn.othersPlay', { name: seatName(v.to_act) });
      case 'over': return S.deadline && S.deadline.kind === 'next' ? t('turn.next') : t('turn.over');
      case 'redeal': return t('turn.redeal');
      default: return '';
    }
  }

  function throwFailedNotice() {
    let idx = -1;
    for (let i = S.events.length - 1; i >= 0; i--) if (S.events[i].e === 'throw_failed') { idx = i; break; }
    if (idx < 0 || idx === S.dismissedThrow) return null;
    const tricksAfter = S.events.slice(idx).filter((e) => e.e === 'trick').length;
    if (tricksAfter > 1 || (S.view && S.view.phase === 'over')) return null;
    const e = S.events[idx];
    const forced = S.events.slice(idx + 1).find((x) => x.e === 'played' && x.p === e.p);
    const box = el('div', { class: 'throw-failed', testid: 'throw-failed', role: 'status' },
      el('strong', { text: t('throw.title', { name: seatName(e.p) }) }),
      richText('throw.tried', { cards: e.cards || '' }),
      forced ? richText('throw.forced', { cards: forced.cards || '' }) : (e.detail ? el('span', { text: t('throw.mustLead', { detail: e.detail }) }) : null),
      el('span', { class: 'penalty', text: t('throw.penalty', { n: Math.abs(e.points || 0), sign: (e.points || 0) >= 0 ? '+' : '−' }) }),
      el('button', { type: 'button', class: 'close-x', 'aria-label': t('common.close'), text: '×', onclick: () => { S.dismissedThrow = idx; render(); } }));
    return box;
  }

  function renderHand() {
    if (!R.hand || S.mode !== 'play') return;
    {
      const v0 = S.view;
      if (unchanged('hand', [getLangSig(), v0 && [v0.hand, v0.legal, v0.level, v0.trump, v0.phase], [...S.sel].sort((a, b) => a - b),
        S.cursor, R.hand.clientWidth, kittyMarks()])) return;
    }
    if (!R.hand || S.mode !== 'play') return;
    const v = S.view;
    R.hand.replaceChildren();
    const cards = handCards();
    R.hand.dataset.count = String(cards.length);
    {
      const l0 = legal();
      R.hand.classList.toggle('selectable', !!(l0.bury || (v && v.phase === 'play')));
      R.hand.classList.toggle('my-turn', !!(l0.bury || myPlayTurn()));
    }
    if (!cards.length) {
      if (v && v.phase === 'deal') R.hand.appendChild(el('div', { class: 'hand-empty muted', text: t('table.waitDeal') }));
      return;
    }
    const playable = playableSet();
    const kitty = kittyMarks();
    const kittyLeft = kitty.slice();
    const l = legal();
    const canSelect = !!(l.bury || (v && v.phase === 'play'));
    const cs = getComputedStyle(R.hand);
    const cw = parseFloat(cs.getPropertyValue('--card-w')) || 64;
    const W = Math.max(200, R.hand.clientWidth - 16);
    const minStrip = Math.max(17, cw * 0.36);
    let rows = 1;
    const n = cards.length;
    const stripFor = (k) => (k > 1 ? (W - cw) / (k - 1) : cw);
    while (rows < 3 && stripFor(Math.ceil(n / rows)) < minStrip) rows += 1;
    const perRow = Math.ceil(n / rows);
    const strip = Math.min(cw * 0.86, stripFor(perRow));
    const rowEls = [];
    for (let r = 0; r < rows; r++) {
      // every row but the last is half covered by the next one: its buttons are only as tall as what shows
      const row = el('div', { class: 'hand-row' + (r < rows - 1 ? ' covered' : '') });
      rowEls.push(row);
      R.hand.appendChild(row);
    }
    R.hand.dataset.rows = String(rows);
    cards.forEach((c, i) => {
      // the button is only as wide as the visible strip of its card (the face overflows under the next one),
      // so a tap or a click at the button's middle always lands on this card
      const face = cardEl(c, { level: v.level, trump: v.trump });
      face.removeAttribute('data-card');
      face.removeAttribute('title');
      face.setAttribute('aria-hidden', 'true');
      const rowIndex = Math.floor(i / perRow);
      const lastInRow = i === Math.min(n, (rowIndex + 1) * perRow) - 1;
      const b = el('button', { type: 'button', class: 'hand-card' + (lastInRow ? ' last' : ''), 'data-card': c, 'aria-label': cardName(c), title: cardName(c) }, face);
      b.style.setProperty('--w', (lastInRow ? cw : strip).toFixed(1) + 'px');
      const selected = S.sel.has(i);
      b.dataset.index = String(i);
      b.dataset.selected = selected ? 'true' : 'false';
      b.dataset.playable = playable[i] ? 'true' : 'false';
      b.dataset.trump = isTrump(c, v.level, v.trump) ? 'true' : 'false';
      b.setAttribute('aria-pressed', selected ? 'true' : 'false');
      if (selected) { b.classList.add('selected'); face.classList.add('selected'); }
      if (!playable[i]) { b.classList.add('dim'); face.classList.add('dim'); }
      const kIdx = kittyLeft.indexOf(c);
      if (kIdx >= 0) {
        kittyLeft.splice(kIdx, 1);
        face.classList.add('from-kitty');
        b.dataset.kitty = 'true';
      }
      if (i === S.cursor) face.classList.add('cursor');
      if (!canSelect) b.setAttribute('aria-disabled', 'true');
      b.tabIndex = -1;
      b.addEventListener('click', (ev) => { ev.preventDefault(); toggleCard(i); });
      b.addEventListener('dblclick', (ev) => { ev.preventDefault(); quickPlay(i); });
      rowEls[rowIndex].appendChild(b);
    });
  }

  // ------------------------------------------------------------------ settlement, game over, overlays
  function renderOverlays() {
    {
      const v0 = S.view;
      if (unchanged('overlays', [getLangSig(), S.reconnecting, S.helpOpen, S.showLast, S.logOpen, S.settleMin, S.readySent, S.hand,
        seatsSig(), S.game, S.deadline && [S.deadline.kind, S.deadline.ready],
        v0 && v0.phase === 'over' ? [v0.result, v0.kitty, v0.points, v0.dealer, S.events.length] : null])) return;
    }
    R.overlay.replaceChildren();
    const v = S.view;
    if (v && v.phase === 'over') R.overlay.appendChild(settlementPanel());
    page.classList.toggle('show-last', !!S.showLast);
    page.classList.toggle('show-log', !!S.logOpen);
    if (S.reconnecting) {
      R.overlay.appendChild(el('div', { class: 'reconnecting', testid: 'reconnecting', role: 'status' },
        el('div', { class: 'reconnect-box' }, el('span', { class: 'spinner' }), el('span', { text: t('table.reconnecting') }))));
    }
    if (S.helpOpen) R.overlay.appendChild(helpOverlay());
  }

  function sideLine(label, names, before, after, mine) {
    const fmt = (x) => (x ? levelText(x.level) + (S.rulesFull && S.rulesFull.circles > 1 ? ' ' + t('info.circle', { n: x.circle }) : '') : '—');
    const changed = before && after && (before.level !== after.level || before.circle !== after.circle);
    return el('div', { class: 'settle-side' + (mine ? ' mine' : '') },
      el('span', { class: 'settle-side-name' }, el('strong', { text: label }), el('small', { class: 'muted', text: ' ' + names + (mine ? ' · ' + t('info.us') : '') })),
      el('span', { class: 'settle-levels' + (changed ? ' changed' : '') }, fmt(before), ' → ', el('strong', { text: fmt(after) })));
  }

  function settlementPanel() {
    const v = S.view;
    const g = S.game;
    const res = v.result || null;
    const me = mySeat();
    const dt = v.dealer !== null && v.dealer !== undefined ? team(v.dealer) : 0;
    const st = 1 - dt;
    const panel = el('div', { class: 'settlement' + (S.settleMin ? ' minimized' : ''), testid: 'settlement', 'data-hand': String(S.hand), role: 'dialog', 'aria-label': t('settle.title', { hand: S.hand }) });
    const head = el('div', { class: 'settle-head' },
      el('h2', { text: g && g.over ? t('settle.titleLast', { hand: g.hands }) : t('settle.title', { hand: g ? g.hands : S.hand }) }),
      el('button', { type: 'button', class: 'btn small ghost', text: S.settleMin ? t('settle.expand') : t('settle.minimize'), onclick: () => { S.settleMin = !S.settleMin; render(); } }));
    panel.appendChild(head);
    if (S.settleMin) {
      panel.appendChild(readyRow());
      return panel;
    }
    // game over
    if (g && g.over) {
      const won = g.winner !== null && g.winner === team(me);
      const go = el('div', { class: 'game-over ' + (won ? 'won' : 'lost'), testid: 'game-over' },
        el('div', { class: 'go-title', text: g.winner === null ? t('gameover.title') : won ? t('gameover.youWin') : t('gameover.theyWin') }),
        el('div', { class: 'go-sub', text: g.winner !== null ? t('gameover.winner', { names: teamNames(g.winner) }) : '' }),
        el('div', { class: 'go-levels' },
          el('span', { text: t('gameover.finalLevels', { us: levelText(g.levels[team(me)].level), them: levelText(g.levels[1 - team(me)].level) }) })),
        g.credits ? el('div', { class: 'go-credits', text: t('gameover.credits', { us: g.credits[team(me)], them: g.credits[1 - team(me)] }) }) : null,
        el('div', { class: 'go-actions' },
          el('button', { type: 'button', class: 'btn primary big', testid: 'again-button', text: t('gameover.again'), onclick: doAgain }),
          el('a', { class: 'btn big', testid: 'replay-link', href: `/replay/${tableId}/${g.number}`, 'data-link': '', text: t('gameover.replay') }),
          el('a', { class: 'btn ghost', href: '/', 'data-link': '', text: t('nav.backToLobby') })));
      panel.appendChild(go);
    }

    const body = el('div', { class: 'settle-body' });
    const p = res ? res.points : v.points;
    const thr = res ? res.threshold : threshold();
    // the headline
    let headline;
    if (res && res.special) headline = t(`special.${res.special}`) + ' (' + t('settle.ruleRef', { ref: SPECIAL_RULE[res.special] || '§11.5' }) + ')';
    else if (res) headline = res.table === 'scoring' ? t('settle.scoringTakes', { n: res.nominal_gain }) : t('settle.dealerKeeps', { n: res.nominal_gain });
    body.appendChild(el('div', { class: 'settle-points' },
      el('div', { class: 'sp-label', text: t('settle.scoringPoints', { names: teamNames(st) }) }),
      el('div', { class: 'sp-value' }, el('span', { class: 'sp-num' + (p >= thr ? ' reached' : ''), testid: 'settle-points', text: String(p) }), el('span', { class: 'sp-thr', text: (p >= thr ? ' ≥ ' : ' < ') + thr })),
      headline ? el('div', { class: 'sp-headline' + (res && res.special ? ' special' : ''), testid: 'settle-headline', text: headline }) : null));

    // the breakdown
    const rows = el('div', { class: 'settle-rows' });
    const row = (label, value, extra) => el('div', { class: 'settle-row' }, el('span', { class: 'sr-label' }, label), el('span', { class: 'sr-value' }, value), extra || null);
    if (res) {
      rows.appendChild(row(t('settle.trickPoints'), String(res.trick_points)));
      if (res.kou_di) rows.appendChild(row(t('settle.kouDi'), t('settle.kouDiValue', { pts: res.kitty_points, mult: res.multiplier, total: res.kou_di })));
      else rows.appendChild(row(t('settle.kittyPoints'), t('settle.kittyKept', { pts: res.kitty_points })));
    }
    const adjEvents = S.events.filter((e) => ['throw_failed', 'fry_failed', 'forced_red5', 'kept_red5'].includes(e.e) && e.points);
    if (adjEvents.length) {
      for (const e of adjEvents) rows.appendChild(row(t(`adj.${e.e}`, { name: seatName(e.p) }), (e.points > 0 ? '+' : '') + e.points));
    } else if (res && res.adjustments && res.adjustments.length) {
      for (const [label, delta] of res.adjustments) rows.appendChild(row(label, (delta > 0 ? '+' : '') + delta));
    }
    if (v.kitty) rows.appendChild(row(t('settle.kitty'), miniCards(v.kitty)));
    body.appendChild(rows);

    // levels
    const lv = el('div', { class: 'settle-levels-box' });
    const before = res ? res.before : null;
    const after = res ? res.after : null;
    const beforeLv = S.levelsAtStart;
    lv.appendChild(sideLine(t('side.dealer'), teamNames(dt), before ? before.dealer : beforeLv && beforeLv[dt], after ? after.dealer : g && g.levels[dt], team(me) === dt));
    lv.appendChild(sideLine(t('side.scoring'), teamNames(st), before ? before.scoring : beforeLv && beforeLv[st], after ? after.scoring : g && g.levels[st], team(me) === st));
    body.appendChild(lv);

    if (res && res.credits) {
      const c = res.credits;
      body.appendChild(el('div', { class: 'settle-row credits-row' },
        el('span', { class: 'sr-label', text: t('info.credits') }),
        el('span', { class: 'sr-value', text: t('settle.creditsChange', { dealer: (c.dealer > 0 ? '+' : '') + c.dealer, scoring: (c.scoring > 0 ? '+' : '') + c.scoring }) })));
    }
    if (res && res.escapes && res.escapes.length) {
      for (const e of res.escapes) body.appendChild(el('div', { class: 'settle-row escape-row', text: t('settle.escape', { name: seatName(e.player), n: e.penalty }) }));
    }
    if (res && !(g && g.over)) {
      const nextDealer = S.game ? S.game.next_dealer : null; // the server's game: its dealer rotation (RULES §2)
      body.appendChild(el('div', { class: 'settle-next' },
        el('span', { text: t('settle.nextDealer', { name: seatName(nextDealer), side: res.table === 'dealer' ? t('side.dealer') : t('side.scoring') }) }),
        res.next_hand === 'flag' ? el('span', { class: 'tag flag-tag', text: t('settle.nextFlag') }) : null));
    }
    if (res && res.game_winner && !(g && g.over)) body.appendChild(el('div', { class: 'notice', text: t('settle.gameWinner', { side: t(`side.${res.game_winner}`) }) }));

    // the engine's notes
    const settled = S.events.filter((e) => e.e === 'settled' && e.detail).map((e) => e.detail);
    const notes = (res && res.notes && res.notes.length ? res.notes : settled);
    if (notes.length) {
      body.appendChild(el('details', { class: 'settle-notes' }, el('summary', { text: t('settle.details') }),
        el('ul', {}, notes.map((n) => el('li', { text: n })))));
    }
    panel.appendChild(body);
    if (!(g && g.over)) panel.appendChild(readyRow());
    return panel;
  }

  function readyRow() {
    const g = S.game;
    if (g && g.over) return el('div', {});
    const sent = S.readySent === S.hand;
    const ready = S.deadline && Array.isArray(S.deadline.ready) ? S.deadline.ready : [];
    return el('div', { class: 'ready-row' },
      el('div', { class: 'ready-info' },
        S.deadline && S.deadline.kind === 'next' ? el('span', { class: 'next-in', 'data-countdown': 'next' }) : el('span', { class: 'muted', text: t('settle.waitNext') }),
        ready.length ? el('span', { class: 'ready-who muted', testid: 'ready-list', text: t('settle.readyWho', { names: ready.map((n) => seatName(n)).join(t('common.listSep')) }) }) : null),
      el('button', { type: 'button', class: 'btn primary big', testid: 'ready-button', disabled: sent, text: sent ? t('settle.readySent') : t('settle.ready'), onclick: doReady }));
  }

  function helpOverlay() {
    const keys = [['← →', 'help.move'], ['Space / ↑', 'help.select'], ['Enter', 'help.enter'], ['P', 'help.pass'], ['A', 'help.auto'], ['L', 'help.last'], ['Esc', 'help.esc'], ['1–9', 'help.options'], ['?', 'help.help']];
    const box = el('div', { class: 'help-overlay', testid: 'help-overlay', role: 'dialog', 'aria-label': t('help.title') },
      el('div', { class: 'help-box' },
        el('h2', { text: t('help.title') }),
        el('dl', {}, keys.map(([k, d]) => [el('dt', {}, el('kbd', { text: k })), el('dd', { text: t(d) })])),
        el('p', { class: 'muted small-text', text: t('help.mouse') }),
        el('button', { type: 'button', class: 'btn primary', text: t('common.close'), onclick: () => { S.helpOpen = false; render(); } })));
    box.addEventListener('click', (e) => { if (e.target === box) { S.helpOpen = false; render(); } });
    return box;
  }

  // ------------------------------------------------------------------ countdowns
  function updateCountdowns() {
    if (S.mode !== 'play') return;
    const left = deadlineLeft();
    const sec = left === null ? null : Math.ceil(left / 1000);
    for (const node of page.querySelectorAll('[data-countdown]')) {
      if (sec === null) { node.textContent = ''; continue; }
      const kind = node.dataset.countdown;
      if (kind === 'next') node.textContent = t('settle.nextIn', { n: sec });
      else if (kind === 'big') node.textContent = String(sec);
      else node.textContent = t('common.secondsShort', { n: sec });
      node.classList.toggle('urgent', left < 5000);
    }
    const ti = turnInfo();
    if (ti.mine && S.deadline && S.deadline.seat === mySeat() && sec !== null && sec <= 3 && sec > 0 && sec !== S.lastTickSec) {
      S.lastTickSec = sec;
      tick();
    }
  }

  // ------------------------------------------------------------------ keyboard
  function onKey(ev) {
    if (S.mode !== 'play') return;
    const tag = (ev.target && ev.target.tagName) || '';
    if (['INPUT', 'SELECT', 'TEXTAREA'].includes(tag) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const cards = handCards();
    const l = legal();
    const key = ev.key;
    if (key === '?') { S.helpOpen = !S.helpOpen; render(); ev.preventDefault(); return; }
    if (key === 'Escape') {
      if (S.helpOpen) S.helpOpen = false;
      else if (S.showLast || S.logOpen) { S.showLast = false; S.logOpen = false; }
      else { S.sel.clear(); S.error = null; }
      render();
      return;
    }
    if (key === 'ArrowLeft' || key === 'ArrowRight') {
      if (!cards.length) return;
      ev.preventDefault();
      if (S.cursor < 0) S.cursor = key === 'ArrowLeft' ? cards.length - 1 : 0;
      else S.cursor = Math.max(0, Math.min(cards.length - 1, S.cursor + (key === 'ArrowLeft' ? -1 : 1)));
      renderHand();
      return;
    }
    if (key === ' ' || key === 'Spacebar' || key === 'ArrowUp') {
      if (S.cursor >= 0 && S.cursor < cards.length) { ev.preventDefault(); toggleCard(S.cursor); }
      return;
    }
    if (key === 'ArrowDown') {
      if (S.cursor >= 0 && S.sel.has(S.cursor)) { ev.preventDefault(); toggleCard(S.cursor); }
      return;
    }
    if (key === 'Enter') {
      if (ev.target && ev.target.tagName === 'BUTTON' && !ev.target.dataset.card) return; // a focused button does its own
      ev.preventDefault();
      if (l.bury) doBury();
      else if (myPlayTurn()) doPlay();
      else if (S.view && S.view.phase === 'over' && !(S.game && S.game.over) && S.readySent !== S.hand) doReady();
      return;
    }
    const lower = key.toLowerCase();
    if (lower === 'p') { doPass(); return; }
    if (lower === 'a') { toggleAuto(); return; }
    if (lower === 'l') { S.showLast = !S.showLast; render(); return; }
    if (/^[1-9]$/.test(key)) {
      const k = Number(key) - 1;
      const opts = l.bids && l.bids.length ? l.bids : l.fries && l.fries.length ? l.fries : null;
      if (opts && opts[k]) doBid(opts[k], !(l.bids && l.bids.length));
    }
  }

  // ------------------------------------------------------------------ start
  async function start() {
    if (S.mine) {
      S.mode = 'loading';
      build();
      connect();
    } else {
      S.mode = 'join';
      build();
      await refreshSummary();
      timers.push(setInterval(() => { if (S.mode === 'join' && !S.joinBusy && !document.hidden) refreshSummaryQuiet(); }, 3000));
    }
  }

  async function refreshSummaryQuiet() {
    const active = document.activeElement;
    if (active && page.contains(active) && (active.tagName === 'INPUT' || active.tagName === 'SELECT')) return;
    await refreshSummary();
  }

  document.addEventListener('keydown', onKey);
  timers.push(setInterval(updateCountdowns, 200));
  const offLang = onLangChange(() => {
    document.title = `${t('table.titleShort', { id: tableId })} · 炒地皮`;
    build();
  });
  start();

  return () => {
    disposed = true;
    for (const fn of disposers.splice(0)) { try { fn(); } catch (_) { /* ignore */ } }
    document.removeEventListener('keydown', onKey);
    for (const id of timers) clearInterval(id);
    clearTimeout(S.retryTimer);
    clearTimeout(S.pendingTimer);
    offLang();
    if (R.ro) R.ro.disconnect();
    if (S.ws) {
      const ws = S.ws;
      S.ws = null;
      try { ws.close(1000, 'page left'); } catch (_) { /* ignore */ }
    }
  };
}
