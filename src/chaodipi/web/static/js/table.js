// The table page /t/{id}: the seat picker, the WebSocket client, and the game drawn for one seat, or for a
// spectator (/t/{id}?watch=1: the four seats, the cards played, the bids and the points, no hand, no actions;
// some tricks behind where the table says so); the table's chat (table-chat.js) for both.
// The server is authoritative: this page draws the last message and sends what the player chooses.
// This module keeps the page's state, the socket, the player's actions, the keyboard and the regions; what each
// region draws is in its own module (table-hand, table-felt, table-panels, table-actions, table-settlement),
// each made by a function that is given this page's state and helpers (`ctx`).
import { t, has, onLangChange, getLang } from './i18n.js';
import * as api from './api.js';
import { parseCards, cardFacts, sameCards, cardsName } from './cards.js';
import { yourTurn, tick } from './sound.js';
import { roomName } from './lobby.js';
import { el } from './dom.js';
import { makeHand } from './table-hand.js';
import { makeFelt } from './table-felt.js';
import { makePanels } from './table-panels.js';
import { makeActions } from './table-actions.js';
import { makeSettlement } from './table-settlement.js';
import { makeChat } from './table-chat.js';
import { phraseText } from './phrases.js';

const RETRY_MS = [500, 1000, 2000, 4000, 5000];
// the keep-alive when the welcome's pace names none (`keepalive_ms`): a ping after this long hearing nothing, and
// after twice this a close and an immediate reconnect (a relaying server may keep a socket open that no longer speaks)
const KEEPALIVE_MS = 10000;


function go(path) {
  window.dispatchEvent(new CustomEvent('chaodipi:navigate', { detail: { path } }));
}

export function mountTable(root, tableId, opts = {}) {
  let held = api.getSeat(tableId);
  // an account's seat kept without a token, after a logout: this browser holds no seat there now
  if (held && !held.token && !api.currentAccount()) { api.forgetSeat(tableId); held = null; }
  const S = {
    mine: held,
    // a spectator: the address asked to watch (a seat this browser holds is taken instead)
    watching: !!opts.watch && !held,
    watchDelay: 0,
    chat: [],
    chatOpen: false,
    chatUnread: 0,
    chatError: '',
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
    // the keep-alive (on the current socket): when a message was last heard, when a ping was last sent, whether the
    // welcome came, the watch's timer and when it last looked (a late look is a held-back timer, not silence)
    heardAt: 0,
    pingAt: 0,
    welcomed: false,
    keepTimer: null,
    keepLooked: 0,
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
    teams: null,
  };
  let disposed = false;
  const timers = [];
  const disposers = [];

  const page = el('section', { class: 'table-page', testid: 'table', 'data-table': String(tableId) });
  root.appendChild(page);

  // ------------------------------------------------------------------ helpers
  const mySeat = () => (S.seat !== null ? S.seat : S.mine ? S.mine.seat : null);
  const rel = (n) => (n - mySeat() + 4) % 4;
  // the teams, the sides and the threshold are the view's (the engine's): nothing here knows the rules. Before the
  // first hand there is no view: then the teams are the server's (a welcome's or seats message's `teams`), if it sends them.
  const teams = () => (S.view && Array.isArray(S.view.teams) ? S.view.teams : S.teams);
  const team = (n) => (teams() ? teams()[n] : null);
  const otherTeam = (tm) => (teams() ? teams().find((x) => x !== tm) : null);
  const facts = () => cardFacts(S.view);
  const view = () => S.view;
  const legal = () => (S.view && S.view.legal) || {};
  /** A seat's own name: a person's, or for a bot what it is (中级机器人), in the reader's language. */
  function plainName(n) {
    const s = S.seats[n];
    if (s && s.kind === 'bot') return has(`bot.name.${s.bot}`) ? t(`bot.name.${s.bot}`) : t('bot.name.rules');
    return s && s.name ? s.name : t('seat.number', { n });
  }
  /** A bot's name in words: 中级机器人 (the kind of bot), with the seat's place (下家·中级机器人) when known. */
  function botName(n, s) {
    const kind = plainName(n);
    return mySeat() !== null ? `${t(`seat.role.${rel(n)}`)}·${kind}` : kind;
  }
  function seatName(n, you = true) {
    if (n === null || n === undefined) return '';
    if (you && n === mySeat()) return t('table.you');
    const s = S.seats[n];
    if (s && s.kind === 'bot') return botName(n, s);
    if (!s || !s.name) return t('seat.number', { n });
    const twin = S.seats.some((o, k) => k !== n && o && o.name === s.name);
    return twin && mySeat() !== null ? `${s.name}·${t(`seat.role.${rel(n)}`)}` : s.name;
  }
  /** A seat's name with its place at the table: 你, 下家·中级机器人, 小明（对家）. */
  function taggedName(n) {
    if (n === mySeat()) return t('table.you');
    const s = S.seats[n];
    if (s && s.kind === 'bot') return botName(n, s);
    const name = s && s.name ? s.name : t('seat.number', { n });
    return mySeat() !== null ? t('seat.tagged', { name, role: t(`seat.role.${rel(n)}`) }) : name;
  }
  function teamNames(tm) {
    return [0, 1, 2, 3].filter((n) => team(n) === tm).map((n) => taggedName(n)).join(t('common.and'));
  }
  /** How the engine's phrases name seats and sides here: by the page's names, a side with whose it is. */
  function phraseCtx() {
    const me = mySeat();
    const dt = S.view && S.view.dealer !== null && S.view.dealer !== undefined ? team(S.view.dealer) : null;
    return {
      seatName: (n) => seatName(n),
      sideName: (side) => {
        const word = has(`side.${side}`) ? t(`side.${side}`) : String(side);
        if (me === null || dt === null) return word;
        const sideTeam = side === 'dealer' ? dt : otherTeam(dt);
        return t('side.withWhose', { side: word, whose: sideTeam === team(me) ? t('info.us') : t('info.them') });
      },
    };
  }
  // the game's time limit (RULES §14.2): the text of the small clock, or null when the table has none
  function gameClockText() {
    const c = S.game && S.game.clock;
    if (!c) return null;
    if (c.time_up) return t('info.gameTimeUp');
    if (S.game.over) return null;
    const left = Math.max(0, Math.ceil((c.ms - (performance.now() - (S.gameAt || 0))) / 1000));
    const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), sec = left % 60;
    const two = (n) => String(n).padStart(2, '0');
    return t('info.gameClock', { time: h ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}` });
  }
  function deadlineLeft() {
    if (!S.deadline) return null;
    return Math.max(0, S.deadline.ms - (performance.now() - S.deadlineAt));
  }
  function threshold() {
    return S.view && typeof S.view.threshold === 'number' ? S.view.threshold : null;
  }
  function handCards() {
    return S.view ? parseCards(S.view.hand) : [];
  }
  function selectedCodes() {
    const cards = handCards();
    return [...S.sel].sort((a, b) => a - b).map((i) => cards[i]).filter(Boolean);
  }
  function myPlayTurn() {
    if (mySeat() !== null && isAuto(mySeat())) return false; // 托管 plays for the seat
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
    if (disposed || (!S.mine && !S.watching)) return;
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
    S.welcomed = false;
    S.heardAt = performance.now();
    startKeepalive();
    ws.addEventListener('open', () => {
      if (ws !== S.ws) return;
      S.heardAt = performance.now();
      // a spectator's hello; a seat's (its token; an account's seat needs none: the session cookie says whose)
      const hello = S.watching ? { type: 'hello', watch: true } : { type: 'hello' };
      if (!S.watching && S.mine.token) hello.token = S.mine.token;
      if (S.eventsHand !== null && S.view) {
        hello.seq = S.seq;
        hello.hand = S.eventsHand;
        hello.events = S.events.length;
      }
      ws.send(JSON.stringify(hello));
    });
    ws.addEventListener('message', (ev) => {
      if (ws !== S.ws || disposed) return;
      S.heardAt = performance.now(); // any message, a pong too: the table still speaks to this socket
      let msg;
      try { msg = JSON.parse(ev.data); } catch (_) { return; }
      handle(msg);
    });
    ws.addEventListener('close', (ev) => {
      if (ws !== S.ws || disposed) return;
      S.ws = null;
      S.conn = 'closed';
      stopKeepalive();
      onClose(ev.code);
    });
  }

  // ------------------------------------------------------------------ keep-alive
  // The WebSocket layer's own pings only show that the socket lives. This watch shows that the table still speaks:
  // after keepalive_ms of silence a ping (the table answers pong, through a relaying server too); after twice that,
  // a close (4998) and an immediate reconnect, with where the page stood (seq, hand, events) as after any drop.
  function keepaliveMs() {
    const ms = S.pace ? Number(S.pace.keepalive_ms) : NaN;
    return ms > 0 ? ms : KEEPALIVE_MS;
  }
  const keepaliveEvery = () => Math.max(250, keepaliveMs() / 4);

  function startKeepalive() {
    stopKeepalive();
    S.keepLooked = performance.now();
    S.keepTimer = setInterval(keepaliveLook, keepaliveEvery());
  }

  function stopKeepalive() {
    clearInterval(S.keepTimer);
    S.keepTimer = null;
  }

  function keepaliveLook() {
    const ws = S.ws;
    if (disposed || !ws) { stopKeepalive(); return; }
    const now = performance.now();
    // a look much later than asked for: the timers were held back (a background tab, a sleeping machine), and the
    // messages that came meanwhile may not have been read yet. It is no proof of silence: ping, and wait once more.
    const late = now - S.keepLooked > 2 * keepaliveEvery();
    S.keepLooked = now;
    if (ws.readyState !== WebSocket.OPEN) return;
    const limit = keepaliveMs();
    if (late) S.heardAt = Math.max(S.heardAt, now - limit);
    const quiet = now - S.heardAt;
    if (quiet >= 2 * limit) {
      // nothing for twice the keep-alive: the socket is open but nobody speaks on it (before the welcome: the hello
      // was not answered). Close it and connect again: at once after a welcome, else after the usual back-off.
      stopKeepalive();
      S.ws = null;
      try { ws.close(4998, 'silent'); } catch (_) { /* ignore */ }
      S.conn = 'closed';
      S.reconnecting = true;
      if (S.welcomed) connect(); else scheduleRetry();
      render();
      return;
    }
    if (S.welcomed && quiet >= limit && S.pingAt <= S.heardAt) {
      S.msgId += 1;
      S.pingAt = now;
      ws.send(JSON.stringify({ type: 'ping', id: 'k' + S.msgId }));
    }
  }

  function onClose(code) {
    if (code === 4403) {
      S.reconnecting = false;
      S.mode = 'gone';
      S.goneReason = S.goneReason || 'noWatchers';
      build();
      return;
    }
    if (S.watching && (code === 4000 || code === 4401)) {
      S.reconnecting = true;
      scheduleRetry();
      render();
      return;
    }
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
        if (msg.watching) {
          S.watching = true;
          S.watchDelay = Number(msg.watch_delay) || 0;
        } else if (S.mine && typeof msg.seat === 'number' && S.mine.seat !== msg.seat) { S.mine.seat = msg.seat; api.setSeat(tableId, S.mine); }
        if (Array.isArray(msg.chat)) chatWelcome(msg.chat);
        S.rules = msg.rules;
        S.status = msg.status;
        S.seats = msg.seats;
        if (Array.isArray(msg.teams)) S.teams = msg.teams;
        if (msg.pace && typeof msg.pace === 'object') S.pace = msg.pace; // the server's pace (trick_pause_ms: the felt)
        S.welcomed = true;
        startKeepalive(); // (at the pace's keep-alive)
        if (!msg.resumed) { S.events = []; S.eventsHand = null; }
        loadRules();
        applyState(msg);
        if (S.mode !== 'play') { S.mode = 'play'; build(); } else render();
        break;
      case 'update':
        applyState(msg);
        render();
        // a referee's penalty (RULES §14.4) is told at once, in words, beside the event log's line
        // (its words are made again at each drawing: the offence's words come with the schedule, fetched once)
        for (const e of Array.isArray(msg.events) ? msg.events : []) {
          if (e.e === 'penalty') showToast(ctx.eventLine(e).textContent, () => ctx.eventLine(e).textContent);
        }
        break;
      case 'seats':
        S.seats = msg.seats;
        if (Array.isArray(msg.teams)) S.teams = msg.teams;
        if (typeof msg.seq === 'number') S.seq = Math.max(S.seq, msg.seq);
        render();
        break;
      case 'error':
        onError(msg);
        break;
      case 'chat':
        if (msg.line) chatLine(msg.line);
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
      const from = Number(msg.events_from) || 0;
      if (from === 0) {
        S.events = events.slice();
        S.eventsHand = msg.hand;
      } else if (msg.hand === S.eventsHand && from === S.events.length) {
        S.events.push(...events);
      } else if (msg.hand === S.eventsHand && from < S.events.length) {
        S.events = S.events.slice(0, from).concat(events);
      } else {
        // a gap: we missed events (of this hand, or the start of a new one); keep what came, and ask for a full
        // snapshot (the next hello says no hand, so the welcome brings the whole list)
        S.events = msg.hand === S.eventsHand ? S.events.concat(events) : events.slice();
        S.eventsHand = null;
        if (S.ws) { try { S.ws.close(4000 + 999, 'resync'); } catch (_) { /* ignore */ } }
      }
    }
    S.hand = msg.hand;
    S.game = msg.game;
    S.gameAt = performance.now(); // the game clock's `ms` counts from here
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
    if (typeof msg.code === 'string' && msg.code.startsWith('chat_')) { chatRefused(msg); return; }
    if (msg.code === 'no_watchers') { S.goneReason = 'noWatchers'; return; }
    if (msg.code === 'stale') { render(); return; }
    if (id === 'ready') { render(); return; } // a server without "ready" just starts the next hand after its pause
    if (msg.code === 'illegal') {
      const isPlay = id.endsWith(':play');
      const words = phraseText(msg.reason, phraseCtx(), msg.message);
      S.error = { text: (isPlay ? t('table.illegalPlay') : t('table.illegalAction')) + words, code: msg.reason ? msg.reason.code : '', seq: S.seq };
      render();
      return;
    }
    const word = has(`error.${msg.code}`) ? t(`error.${msg.code}`) : msg.code;
    showToast(`${word}: ${msg.message}`);
  }

  /** A notice for 5 seconds; ``make``, when given, makes its text again at each drawing (words that arrive later). */
  function showToast(text, make = null) {
    S.toast = { text, make, at: Date.now() };
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
    if (!v || me === null) return { mine: false }; // a spectator has no turn
    // 托管: the bot decides for this seat; the page does not call it the player's turn
    if (me !== null && isAuto(me)) return { mine: false, auto: true };
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
    if (!canSelect || !canToggle(i)) return; // 托管, or a card that goes with the selection in no legal lead
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
    S.autoAsked = !isAuto(me); // the player asked for 托管 (not two missed decisions)
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
  // ------------------------------------------------------------------ DOM skeleton
  const R = {}; // regions (one object for the page's life: the drawing modules hold it)

  function build() {
    page.replaceChildren();
    for (const k of Object.keys(R)) delete R[k];
    R.sig = {};
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
    R.sideBody = el('div', { class: 'side-body' });
    R.side.append(R.sideBody, chatPanel());
    page.classList.toggle('watching', !!S.watching);
    page.classList.toggle('show-chat', !!S.chatOpen);
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
    const watchBtn = s.watch !== false && s.status !== 'finished'
      ? el('a', { href: `/t/${tableId}?watch=1`, 'data-link': '', class: 'btn', testid: 'watch-button', text: t('rooms.watch') }) : null;
    if (s.status !== 'waiting') {
      box.appendChild(el('p', { class: 'notice big', testid: 'no-seat', text: s.status === 'finished' ? t('join.finished') : t('join.started') }));
      box.appendChild(el('div', { class: 'join-actions' }, watchBtn, el('a', { href: '/', 'data-link': '', class: 'btn primary', text: t('nav.backToLobby') })));
      return;
    }
    const name = el('input', { type: 'text', maxlength: '24', testid: 'player-name', placeholder: t('lobby.namePlaceholder') });
    name.value = api.defaultName(t('lobby.defaultNamePrefix'));
    const account = api.currentAccount();
    if (account) { name.value = account.username; name.disabled = true; }
    box.appendChild(el('label', { class: 'field' }, el('span', { class: 'field-label', text: t('lobby.yourName') }), name));
    const list = el('div', { class: 'join-seats' });
    s.seats.forEach((seat, n) => {
      const row = el('div', { class: 'join-seat' + (seat ? ' taken' : ' free'), testid: 'seat-' + n },
        el('span', { class: 'seat-chip-no', text: String(n) }),
        el('span', { class: 'join-seat-name', text: seat ? plainName(n) : t('seat.free') }),
        seat && seat.kind === 'bot' ? el('span', { class: 'tag bot-tag', text: t(`bot.short.${(seat.bot || 'rules')}`) }) : null);
      if (!seat) {
        row.appendChild(el('button', { type: 'button', class: 'btn primary', testid: 'sit-' + n, disabled: S.joinBusy, text: t('join.sitHere'), onclick: async () => {
          const nm = name.value.trim();
          if (!nm && !account) { S.joinError = t('lobby.nameRequired'); build(); return; }
          S.joinBusy = true;
          try {
            const res = await api.sitAt(tableId, nm, n);
            S.mine = api.getSeat(tableId) || { token: res.token, seat: res.seat, name: nm };
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
        for (const b of ['rules', 'random', 'search', 'learned']) sel.appendChild(el('option', { value: b, text: t(`bot.level.${b}`) }));
        row.appendChild(el('span', { class: 'add-bot' }, sel, el('button', { type: 'button', class: 'btn', testid: 'add-bot-' + n, text: t('lobby.addBot'), onclick: async () => {
          try { await api.takeSeat(tableId, { bot: sel.value, seat: n }); } catch (e) { S.joinError = e.message; }
          refreshSummary();
        } })));
      }
      list.appendChild(row);
    });
    box.appendChild(list);
    if (S.joinError) box.appendChild(el('p', { class: 'form-error', text: S.joinError }));
    if (watchBtn) box.appendChild(el('div', { class: 'join-actions' }, watchBtn));
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
    if (S.sel.size && mySeat() !== null && isAuto(mySeat())) S.sel.clear(); // 托管 plays: nothing stays selected
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
        S.watching, S.watchDelay, S.chatUnread, S.chatOpen,
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
    if (S.watching) {
      // a spectator: the 观战中 banner (and how far behind), the last trick, the log, the chat, and the way out
      title.appendChild(el('span', { class: 'watch-banner', testid: 'watch-banner', role: 'status' },
        el('span', { text: t('watch.banner') }),
        S.watchDelay ? el('span', { class: 'watch-delay', testid: 'watch-delay', text: t('watch.behind', { n: S.watchDelay }) }) : null));
      const wtools = el('div', { class: 'tbl-tools' },
        el('button', { type: 'button', class: 'tool-btn last-btn', testid: 'last-trick-button', 'aria-pressed': S.showLast ? 'true' : 'false', disabled: !(v && v.tricks && v.tricks.length), onclick: () => { S.showLast = !S.showLast; render(); } }, [el('span', { class: 'lbl-long', text: t('table.lastTrick') }), el('span', { class: 'lbl-short', text: t('table.lastTrickShort') })]),
        el('button', { type: 'button', class: 'tool-btn log-btn', 'aria-pressed': S.logOpen ? 'true' : 'false', onclick: () => { S.logOpen = !S.logOpen; render(); } }, t('table.log')),
        chatButton(),
        el('a', { class: 'tool-btn leave-btn', href: '/', 'data-link': '', testid: 'stop-watching' }, [el('span', { class: 'lbl-long', text: t('watch.stop') }), el('span', { class: 'lbl-short', text: t('watch.stopShort') })]));
      R.top.append(title, wtools);
      return;
    }
    const tools = el('div', { class: 'tbl-tools' },
      el('button', { type: 'button', class: 'tool-btn last-btn', testid: 'last-trick-button', 'aria-pressed': S.showLast ? 'true' : 'false', disabled: !(v && v.tricks && v.tricks.length), onclick: () => { S.showLast = !S.showLast; render(); } }, [el('span', { class: 'lbl-long', text: t('table.lastTrick') }), el('span', { class: 'lbl-short', text: t('table.lastTrickShort') })]),
      el('button', { type: 'button', class: 'tool-btn log-btn', 'aria-pressed': S.logOpen ? 'true' : 'false', onclick: () => {
        S.logOpen = !S.logOpen;
        render();
      } }, t('table.log')),
      chatButton(),
      el('button', { type: 'button', class: 'tool-btn auto-btn' + (auto ? ' on' : ''), testid: 'auto-toggle', 'aria-pressed': auto ? 'true' : 'false', disabled: S.status === 'waiting', onclick: toggleAuto }, [el('span', { class: 'lbl-long', text: auto ? t('table.autoOn') : t('table.autoOff') }), el('span', { class: 'lbl-short', text: auto ? t('table.autoOnShort') : t('table.autoOffShort') })]),
      el('button', { type: 'button', class: 'tool-btn leave-btn', testid: 'leave-button', onclick: doLeave }, [el('span', { class: 'lbl-long', text: S.status === 'playing' ? t('table.escape') : t('table.leave') }), el('span', { class: 'lbl-short', text: S.status === 'playing' ? t('table.escapeShort') : t('table.leaveShort') })]),
      el('button', { type: 'button', class: 'tool-btn help-btn', testid: 'help-button', 'aria-label': t('help.title'), text: '?', onclick: () => { S.helpOpen = !S.helpOpen; render(); } }));
    R.top.append(title, tools);
  }

  function roomFromSpec() {
    if (!S.rules) return '';
    return S.rules.preset + (S.rules.set && Object.keys(S.rules.set).length ? '+' : '');
  }

  // ------------------------------------------------------------------ settlement, game over, overlays
  function renderOverlays() {
    {
      const v0 = S.view;
      if (unchanged('overlays', [getLangSig(), S.reconnecting, S.helpOpen, S.showLast, S.logOpen, S.chatOpen, S.settleMin, S.readySent, S.hand,
        seatsSig(), S.game, S.deadline && [S.deadline.kind, S.deadline.ready],
        v0 && v0.phase === 'over' ? [v0.result, v0.kitty, v0.points, v0.dealer, S.events.length] : null])) return;
    }
    R.overlay.replaceChildren();
    const v = S.view;
    if (v && v.phase === 'over') R.overlay.appendChild(settlementPanel());
    if (S.chatOpen && (S.showLast || S.logOpen)) S.chatOpen = false; // one sheet at a time on a phone
    page.classList.toggle('show-last', !!S.showLast);
    page.classList.toggle('show-log', !!S.logOpen);
    page.classList.toggle('show-chat', !!S.chatOpen);
    if (S.reconnecting) {
      R.overlay.appendChild(el('div', { class: 'reconnecting', testid: 'reconnecting', role: 'status' },
        el('div', { class: 'reconnect-box' }, el('span', { class: 'spinner' }), el('span', { text: t('table.reconnecting') }))));
    }
    if (S.helpOpen) R.overlay.appendChild(helpOverlay());
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
    const clockText = gameClockText();
    for (const node of page.querySelectorAll('[data-game-clock]')) node.textContent = clockText || '';
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
    if (S.mine || S.watching) {
      S.mode = 'loading';
      build();
      connect();
      if (S.watching) refreshWatchInfo();
    } else {
      S.mode = 'join';
      build();
      await refreshSummary();
      // the seat the logged-in account holds here (taken in another browser, or claimed): no token needed
      const account = api.currentAccount();
      const held = account && S.summary && Array.isArray(S.summary.seats)
        ? S.summary.seats.findIndex((x) => x && x.account && x.account.toLowerCase() === account.username.toLowerCase()) : -1;
      if (held >= 0 && !disposed && S.mode === 'join') {
        S.mine = { token: null, seat: held, name: account.username };
        api.setSeat(tableId, S.mine);
        S.mode = 'loading';
        build();
        connect();
        return;
      }
      timers.push(setInterval(() => { if (S.mode === 'join' && !S.joinBusy && !document.hidden) refreshSummaryQuiet(); }, 3000));
    }
  }

  /** A spectator's table facts the welcome may not carry (how many tricks behind). */
  async function refreshWatchInfo() {
    try {
      const s = await api.getTable(tableId);
      if (disposed) return;
      if (typeof s.watch_delay === 'number' && !S.watchDelay) { S.watchDelay = s.watch_delay; render(); }
    } catch (_) { /* the welcome says it too */ }
  }

  async function refreshSummaryQuiet() {
    const active = document.activeElement;
    if (active && page.contains(active) && (active.tagName === 'INPUT' || active.tagName === 'SELECT')) return;
    await refreshSummary();
  }

  // ------------------------------------------------------------------ the regions' drawing modules
  const ctx = {
    S, R, page, tableId,
    mySeat, rel, team, otherTeam, facts, view, legal, seatName, plainName, teamNames, taggedName, phraseCtx, threshold, handCards, selectedCodes,
    myPlayTurn, dealerTeam, isAuto, hasLeft, send, act, showToast, turnInfo, toggleCard, clearSel, doPlay, doBury,
    doPass, doBid, doReady, doAgain, quickPlay, inviteBox, render, getLangSig, unchanged, seatsSig, gameClockText,
  };
  const { renderHand, isThrowSelection, canToggle } = Object.assign(ctx, makeHand(ctx));
  const { renderFelt } = Object.assign(ctx, makeFelt(ctx));
  const { renderInfo, renderSide } = Object.assign(ctx, makePanels(ctx));
  const { renderActions } = Object.assign(ctx, makeActions(ctx));
  const { settlementPanel } = Object.assign(ctx, makeSettlement(ctx));
  const { chatPanel, chatWelcome, chatLine, chatRefused, chatButton } = Object.assign(ctx, makeChat(ctx));

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
    stopKeepalive();
    offLang();
    if (R.ro) R.ro.disconnect();
    if (S.ws) {
      const ws = S.ws;
      S.ws = null;
      try { ws.close(1000, 'page left'); } catch (_) { /* ignore */ }
    }
  };
}
