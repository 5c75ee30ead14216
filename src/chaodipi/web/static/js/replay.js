// The replay viewer: a finished game, frame by frame (/replay, /replay/{table}/{game}).
// The server replays the record and sends every frame with the four seats' views
// (GET /api/tables/{t}/games/{g}/replay, POST /api/replay); this page only draws them.
// This module keeps the viewer's state, the position (hand, frame, play), what is shown at it (snapshot), the loading,
// the controls, autoplay and keys; the picker, the board, the side panels and the result are each in a module of
// their own (replay-picker, replay-board, replay-panels, replay-result), made with this viewer's state and helpers.
import { t, has, onLangChange } from './i18n.js';
import { parseCards, cardFacts } from './cards.js';
import { getJSON, listTables, postText } from './api.js';
import { el } from './dom.js';
import { sharedOr, isTrickStep, levelText, progressText, roomName } from './replay-common.js';
import { makePicker } from './replay-picker.js';
import { makeBoard } from './replay-board.js';
import { makeResult } from './replay-result.js';
import { makePanels } from './replay-panels.js';

// -- small helpers -----------------------------------------------------------------------------



const STEPS = ['bidding', 'bury', 'fry', 'play', 'trick', 'over', 'redeal', 'left', 'red5'];
const SPEEDS = [0.5, 1, 2, 4];
const PREF_BYCARD = 'chaodipi.replay.byCard';
const PREF_SPEED = 'chaodipi.replay.speed';

function readPref(key, fallback) {
  try {
    const v = localStorage.getItem(key);
    return v === null ? fallback : JSON.parse(v);
  } catch (_) { return fallback; }
}

function writePref(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (_) { /* storage may be off */ }
}

/**
 * POST /api/replay with the record's own text. Parsing it here and sending JSON.stringify of the result would
 * round a seed written as a large number (JavaScript numbers are doubles); the server reads the digits exactly.
 */
async function postRecordText(text) {
  return postText('/api/replay', text); // (with the session's CSRF token, as every POST)
}

/** The keys of the viewer, for its help (`?`): [keys, catalogue key]. */
const HELP_KEYS = [
  ['← →', 'replay.help.step'],
  ['↑ ↓ / PgUp PgDn', 'replay.help.hand'],
  ['Home / End', 'replay.help.ends'],
  ['Space', 'replay.help.play'],
  ['Esc', 'replay.help.esc'],
  ['?', 'replay.help.help'],
];

/** The multiset `codes` less `minus` (each removed once). */
function without(codes, minus) {
  const out = codes.slice();
  for (const c of minus) {
    const i = out.indexOf(c);
    if (i >= 0) out.splice(i, 1);
  }
  return out;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const ICONS = {
  first: ['M5 5h2.4v14H5z', 'M19 5v14L8.6 12z'],
  prev: ['M17 5v14L6 12z'],
  next: ['M7 5v14l11-7z'],
  last: ['M16.6 5H19v14h-2.4z', 'M5 5v14l10.4-7z'],
  prevTrick: ['M12 5.5v13L3 12z', 'M21 5.5v13L12 12z'],
  nextTrick: ['M3 5.5v13l9-6.5z', 'M12 5.5v13l9-6.5z'],
  play: ['M7 4.5v15L19.5 12z'],
  pause: ['M6 5h4v14H6z', 'M14 5h4v14h-4z'],
};

function svgIcon(paths) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'r-icon');
  svg.setAttribute('aria-hidden', 'true');
  for (const d of paths) {
    const path = document.createElementNS(SVG_NS, 'path');
    path.setAttribute('d', d);
    path.setAttribute('fill', 'currentColor');
    svg.appendChild(path);
  }
  return svg;
}

// -- the page --------------------------------------------------------------------------------

export function mountReplay(root, params = {}) {
  const fromTable = Number.isInteger(params.table) && Number.isInteger(params.game);
  const state = {
    data: null,
    source: fromTable ? { kind: 'table', table: params.table, game: params.game } : null,
    loading: false,
    error: '',
    hi: 0, // the hand's index in data.hands
    fi: 0, // the frame's index in the hand's frames
    sub: null, // card by card: how many plays of frame fi's trick are shown (null: the whole frame)
    seat: 'all',
    playing: false,
    speed: SPEEDS.includes(readPref(PREF_SPEED, 1)) ? readPref(PREF_SPEED, 1) : 1,
    byCard: readPref(PREF_BYCARD, false) === true,
    games: null,
    gamesError: '',
    helpOpen: false, // the keys' help (`?`), as at the table
  };
  let disposed = false;
  let timer = null;
  const offs = [];

  const wrap = el('section', { class: 'replay', testid: 'replay', 'data-seat-view': 'all' });
  root.appendChild(wrap);

  // ------------------------------------------------------------------ position and frames

  const hand = () => (state.data ? state.data.hands[state.hi] : null);
  const frames = () => (hand() ? hand().frames : []);
  const frame = () => frames()[state.fi] || null;
  /** A seat's team (the index of its side in the record's levels and credits), as the views say. */
  function teamOf(seat) {
    const f = (hand() && hand().frames[0]) || (state.data && state.data.hands[0].frames[0]);
    return f && f.views[0].teams ? f.views[0].teams[seat] : null;
  }
  /** The seats of a team, in order. */
  const seatsOf = (team) => [0, 1, 2, 3].filter((s) => teamOf(s) === team);

  /** Card by card inside frame fi's trick: {start, len, trick, prev} or null when it has no steps inside. */
  function subRange(fi) {
    const fs = frames();
    const f = fs[fi];
    if (!state.byCard || !f || fi === 0 || !isTrickStep(f.step)) return null;
    const prev = fs[fi - 1];
    if (!prev || prev.trick !== f.trick - 1) return null;
    const trick = f.views[0].tricks[f.trick - 1];
    if (!trick) return null;
    const start = (prev.views[0].current_trick || []).length;
    if (start + 1 > trick.plays.length - 1) return null;
    return { start, len: trick.plays.length, trick, prev };
  }

  function setPos(hi, fi, sub = null) {
    state.hi = hi;
    state.fi = fi;
    state.sub = sub;
    renderViewer();
  }

  function canNext() {
    if (state.sub !== null) return true;
    return state.fi + 1 < frames().length;
  }

  function canPrev() {
    if (state.sub !== null) return true;
    return state.fi > 0 || subRange(state.fi) !== null;
  }

  function next() {
    if (state.sub !== null) {
      const r = subRange(state.fi);
      if (r && state.sub + 1 < r.len) setPos(state.hi, state.fi, state.sub + 1);
      else setPos(state.hi, state.fi, null);
      return true;
    }
    if (state.fi + 1 >= frames().length) return false;
    const r = subRange(state.fi + 1);
    setPos(state.hi, state.fi + 1, r ? r.start + 1 : null);
    return true;
  }

  function prev() {
    if (state.sub !== null) {
      const r = subRange(state.fi);
      if (r && state.sub - 1 >= r.start + 1) setPos(state.hi, state.fi, state.sub - 1);
      else setPos(state.hi, Math.max(0, state.fi - 1), null);
      return true;
    }
    const r = subRange(state.fi);
    if (r) { setPos(state.hi, state.fi, r.len - 1); return true; }
    if (state.fi === 0) return false;
    setPos(state.hi, state.fi - 1, null);
    return true;
  }

  function nextTrick() {
    const fs = frames();
    const from = state.sub !== null ? state.fi : state.fi + 1;
    for (let i = from; i < fs.length; i++) {
      if (isTrickStep(fs[i].step)) { setPos(state.hi, i, null); return true; }
    }
    return false;
  }

  function prevTrick() {
    const fs = frames();
    for (let i = state.fi - 1; i >= 0; i--) {
      if (isTrickStep(fs[i].step)) { setPos(state.hi, i, null); return true; }
    }
    if (state.fi > 0 || state.sub !== null) { setPos(state.hi, 0, null); return true; }
    return false;
  }

  function hasNextTrick() {
    const fs = frames();
    const from = state.sub !== null ? state.fi : state.fi + 1;
    for (let i = from; i < fs.length; i++) if (isTrickStep(fs[i].step)) return true;
    return false;
  }

  function gotoHand(hi, atEnd = false) {
    if (!state.data || hi < 0 || hi >= state.data.hands.length) return false;
    const n = state.data.hands[hi].frames.length;
    setPos(hi, atEnd ? Math.max(0, n - 1) : 0, null);
    return true;
  }

  // ------------------------------------------------------------------ what is shown now

  /**
   * The table at the current position, as the chosen seat (or everybody) sees it:
   * {views, events, hands[s], sizes[s], trick, tricks, points, bids, kitty, trump, level, toAct, ...}.
   */
  function snapshot() {
    const h = hand();
    const f = frame();
    if (!h || !f) return null;
    let views = f.views;
    let events = f.events;
    let shown = null; // the trick on the table: {plays, winner, points, done}
    let handsOf = (s) => parseCards(views[s].hand);
    let sizesOf = (v) => v.hand_sizes.slice();
    let toAct = null;
    let tricks = null;

    const r = state.sub !== null ? subRange(state.fi) : null;
    if (r) {
      // between the previous frame and this trick's end: the first `sub` plays are on the table
      views = r.prev.views;
      const plays = r.trick.plays.slice(0, state.sub);
      const newly = plays.slice(r.start);
      handsOf = (s) => without(parseCards(views[s].hand), newly.filter((p) => p[0] === s).flatMap((p) => parseCards(p[1])));
      sizesOf = (v) => v.hand_sizes.map((n, s) => n - newly.filter((p) => p[0] === s).reduce((a, p) => a + parseCards(p[1]).length, 0));
      shown = { plays, winner: null, points: null, done: false, leader: r.trick.leader };
      toAct = r.trick.plays[state.sub] ? r.trick.plays[state.sub][0] : null;
      // the log up to the sub-th play of this trick
      let need = state.sub - r.start;
      const log = h.log;
      let i = r.prev.events;
      while (i < log.length && need > 0) {
        if (log[i].e === 'played') need -= 1;
        i += 1;
      }
      events = i;
      tricks = views[0].tricks;
    } else {
      const v0 = views[0];
      tricks = v0.tricks;
      if (v0.current_trick && v0.current_trick.length) {
        shown = { plays: v0.current_trick, winner: null, points: null, done: false, leader: v0.current_trick[0][0] };
      } else if (isTrickStep(f.step) && f.trick > 0 && v0.tricks[f.trick - 1]) {
        const tk = v0.tricks[f.trick - 1];
        shown = { plays: tk.plays, winner: tk.winner, points: tk.points, done: true, leader: tk.leader };
      }
    }

    const seat = state.seat;
    const all = seat === 'all';
    const mine = all ? null : views[seat];
    const dealer = views[0].dealer;
    const level = views[0].level;
    let trump;
    if (all) {
      const known = views.find((v) => v.trump);
      trump = known ? known.trump : null;
    } else {
      trump = mine.trump;
    }
    const hands = [];
    const sizes = sizesOf(mine || views[0]);
    // which cards are trump and their points: each view's facts (the engine's); everybody's: a view that knows the trump
    const facts = cardFacts(all ? views.find((v) => v.trump) || views[0] : mine);
    const marks = [];
    for (let s = 0; s < 4; s++) {
      marks[s] = cardFacts(views[s]);
      hands[s] = all || s === seat ? handsOf(s) : null;
    }

    // bids: the seat's own list, or everybody's put together (each bid from its maker's view)
    let bids;
    if (all) {
      bids = views[0].bids.map((b, i) => {
        const merged = { ...b };
        for (const v of views) {
          const o = v.bids[i];
          if (!o) continue;
          if (o.cards !== undefined && merged.cards === undefined) { merged.cards = o.cards; if (o.choose) merged.choose = o.choose; }
          if (o.valid !== undefined && merged.valid === undefined) merged.valid = o.valid;
        }
        return merged;
      });
    } else {
      bids = mine.bids;
    }

    // the kitty: shown where a view has it (not while its holder has it in hand: "")
    let kitty = null;
    let kittyHeld = false;
    const kviews = all ? views : [mine];
    for (const v of kviews) {
      if (v.kitty) { kitty = parseCards(v.kitty); break; }
      if (v.kitty === '') kittyHeld = true;
    }
    // the cards picked up from the kitty, while their holder has them in hand (to mark them)
    const fromKitty = {};
    for (let i = 0; i < events && i < h.log.length; i++) {
      const e = h.log[i];
      if (e.e === 'kitty_taken') fromKitty[e.p] = parseCards(e.cards);
      if (e.e === 'buried') delete fromKitty[e.p];
    }
    for (const s of Object.keys(fromKitty)) {
      const holderView = views[s];
      if (!(holderView && holderView.kitty === '' && (all || Number(s) === seat))) delete fromKitty[s];
    }

    const left = new Set(views[0].left || []);
    const base = views[0];
    return {
      h, f, views, events, shown, tricks, hands, sizes, marks, bids, kitty, kittyHeld, fromKitty, left,
      dealer, level, trump, facts, all, seat,
      sides: views[0].sides || null,
      points: base.points,
      toAct: r ? toAct : base.to_act,
      phase: base.phase,
      result: f.step === 'over' || base.phase === 'over' ? (mine || base).result || views.find((v) => v.result)?.result || null : null,
      sub: r ? { k: state.sub, len: r.len } : null,
    };
  }

  // ------------------------------------------------------------------ loading

  async function loadFromTable() {
    state.loading = true;
    state.error = '';
    renderAll();
    try {
      const data = await getJSON(`/api/tables/${state.source.table}/games/${state.source.game}/replay`);
      if (disposed) return;
      accept(data);
    } catch (e) {
      if (disposed) return;
      state.loading = false;
      state.error = e.status === 404 ? t('replay.error.notFound', { table: state.source.table, game: state.source.game }) : (e.message || String(e));
      renderAll();
    }
  }

  async function upload(text, name) {
    state.error = '';
    if (!text || !text.trim()) {
      state.error = t('replay.error.empty');
      renderAll();
      return;
    }
    if (new Blob([text]).size > 2 * 1024 * 1024) {
      state.error = t('replay.error.tooLarge');
      renderAll();
      return;
    }
    try {
      JSON.parse(text); // only to say at once that it is not JSON: the server is sent the text itself
    } catch (_) {
      state.error = t('replay.error.notJson');
      renderAll();
      return;
    }
    state.loading = true;
    renderAll();
    try {
      const data = await postRecordText(text);
      if (disposed) return;
      state.source = { kind: 'file', name };
      accept(data);
    } catch (e) {
      if (disposed) return;
      state.loading = false;
      state.error = e.status === 413 ? t('replay.error.tooLarge') : (e.message || String(e));
      renderAll();
    }
  }

  function accept(data) {
    state.loading = false;
    if (!data || !Array.isArray(data.hands) || !data.hands.length) {
      state.error = t('replay.error.noHands');
      renderAll();
      return;
    }
    state.data = data;
    state.error = '';
    // the position in the address (#h=2&f=7&s=1), when it names one
    const m = /^#h=(\d+)&f=(\d+)(?:&s=(all|[0-3]))?/.exec(location.hash || '');
    state.hi = 0;
    state.fi = 0;
    state.sub = null;
    if (m && state.source && state.source.kind === 'table') {
      const hi = Number(m[1]) - 1;
      if (hi >= 0 && hi < data.hands.length) {
        state.hi = hi;
        state.fi = Math.min(Number(m[2]), Math.max(0, data.hands[hi].frames.length - 1));
      }
      if (m[3]) state.seat = m[3] === 'all' ? 'all' : Number(m[3]);
    }
    buildViewer();
    renderViewer();
  }

  async function loadGames() {
    state.games = null;
    state.gamesError = '';
    try {
      const [fin, play] = await Promise.all([listTables('finished'), listTables('playing')]);
      if (disposed) return;
      const out = [];
      const tables = [...(fin.tables || []), ...(play.tables || [])].sort((a, b) => b.id - a.id);
      for (const tb of tables) {
        const g = tb.game || null;
        const number = g && g.number ? g.number : (tb.games || 0); // the number of games started at the table
        const count = tb.status === 'finished' || (g && g.over) ? number : Math.max(0, number - 1);
        for (let n = count; n >= 1; n--) {
          const last = g && g.number === n && g.over;
          out.push({ table: tb, game: n, winner: last ? g.winner : null, levels: last ? g.levels : null });
        }
      }
      state.games = out;
    } catch (e) {
      if (disposed) return;
      state.games = [];
      state.gamesError = e.message || String(e);
    }
    if (!state.data) renderPicker();
  }

  // ------------------------------------------------------------------ rendering: frame

  function renderAll() {
    if (disposed) return;
    if (state.data) { buildViewer(); renderViewer(); return; }
    if (state.source && state.source.kind === 'table') renderTableLoading();
    else renderPicker();
  }

  function errorBox(text) {
    return el('div', { class: 'r-error', role: 'alert', testid: 'replay-error' }, el('span', { class: 'r-error-text', text }));
  }

  function renderTableLoading() {
    setAttrs();
    const box = el('div', { class: 'r-page' });
    const links = el('div', { class: 'r-links' },
      el('a', { class: 'r-btn', href: `/t/${state.source.table}`, 'data-link': '', testid: 'replay-back', text: t('replay.backToTable', { table: state.source.table }) }),
      el('a', { class: 'r-btn', href: '/replay', 'data-link': '', text: t('replay.allReplays') }));
    if (state.error) {
      box.append(el('h1', { class: 'r-title', text: t('replay.title') }), errorBox(state.error), links);
    } else {
      box.append(el('div', { class: 'r-loading', role: 'status' }, el('span', { class: 'r-spinner', 'aria-hidden': 'true' }), t('replay.loading')));
    }
    wrap.replaceChildren(box);
  }

  // ------------------------------------------------------------------ the picker (/replay)

  // ------------------------------------------------------------------ the viewer

  const ui = {};

  function teamName(team) {
    return t('replay.team' + team);
  }

  function playerName(s) {
    const p = state.data && state.data.players ? state.data.players[s] : null;
    // a bot's seat is recorded by the server as "<kind> bot": say what it is in the reader's language
    const bot = typeof p === 'string' ? /^(random|rules|search|learned) bot$/.exec(p) : null;
    if (bot && has(`bot.name.${bot[1]}`)) return t(`bot.name.${bot[1]}`);
    return p || t('replay.seatLabel', { n: s });
  }

  function seatTitle(s) {
    return t('replay.seatOf', { n: s, name: playerName(s) });
  }

  function buildViewer() {
    const d = state.data;
    ui.root = el('div', { class: 'r-viewer' });

    // header: what game this is
    const src = state.source || {};
    const title = el('div', { class: 'r-head-title' },
      el('h1', { class: 'r-title' },
        el('span', { text: t('replay.title') }),
        el('span', { class: 'r-title-sep', text: ' · ' }),
        el('span', { class: 'r-title-room', text: roomName(d.room || (d.rules && d.rules.preset)) })),
      el('div', { class: 'r-head-sub' },
        src.kind === 'table' ? el('span', { class: 'r-chip', text: t('replay.tableGame', { table: src.table, game: src.game }) }) : null,
        src.kind === 'file' ? el('span', { class: 'r-chip', title: src.name, text: t('replay.fromFile', { name: src.name }) }) : null,
        el('span', { class: 'r-chip', text: t('replay.seed', { seed: d.seed }) }),
        d.winner !== null && d.winner !== undefined
          ? el('span', { class: 'r-chip r-chip-win', text: t('replay.winner', { team: teamName(d.winner), names: seatsOf(d.winner).map(playerName).join(' · ') }) })
          : el('span', { class: 'r-chip', text: t('replay.noWinner') }),
        d.levels ? el('span', { class: 'r-chip', title: t('replay.finalLevels') },
          t('replay.finalLevelsShort', { a: progressText(d.levels[0]), b: progressText(d.levels[1]) })) : null,
        d.credits ? el('span', { class: 'r-chip', text: t('replay.credits', { a: d.credits[0], b: d.credits[1] }) }) : null),
      el('div', { class: 'r-players' },
        [...new Set([0, 1, 2, 3].map(teamOf))].map((team) => el('span', { class: `r-team r-team-${team}` },
          el('span', { class: 'r-team-dot', 'aria-hidden': 'true' }),
          el('strong', { text: teamName(team) }),
          el('span', { text: seatsOf(team).map(seatTitle).join(' · ') })))));
    const links = el('div', { class: 'r-links' });
    if (src.kind === 'table') {
      links.append(
        el('a', { class: 'r-btn r-small', href: `/t/${src.table}`, 'data-link': '', testid: 'replay-back', text: t('replay.backToTable', { table: src.table }) }),
        el('a', { class: 'r-btn r-small', href: `/api/tables/${src.table}/games/${src.game}/record`, download: `chaodipi-table${src.table}-game${src.game}.json`, testid: 'replay-download', text: t('replay.download') }));
    }
    links.appendChild(el('a', { class: 'r-btn r-small', href: '/replay', 'data-link': '', testid: 'replay-open-other', text: t('replay.openOther'),
      onclick: (e) => {
        if (location.pathname === '/replay' || location.pathname === '/replay/') {
          e.preventDefault();
          stopPlay();
          state.data = null;
          state.helpOpen = false;
          state.source = null;
          state.error = '';
          history.replaceState(null, '', '/replay');
          renderPicker();
          loadGames();
        }
      } }));
    ui.root.appendChild(el('header', { class: 'r-head' }, title, links));

    // controls
    ui.handSelect = el('select', { class: 'r-select', testid: 'replay-hand-select', 'aria-label': t('replay.hand') });
    d.hands.forEach((h, i) => {
      ui.handSelect.appendChild(el('option', { value: String(h.number), text: handLabel(h, i) }));
    });
    ui.handSelect.addEventListener('change', () => {
      const i = d.hands.findIndex((h) => String(h.number) === ui.handSelect.value);
      if (i >= 0) { stopPlay(); gotoHand(i); }
    });
    ui.seatSelect = el('select', { class: 'r-select', testid: 'replay-seat-select', 'aria-label': t('replay.seatView') });
    ui.seatSelect.appendChild(el('option', { value: 'all', text: t('replay.allOpen') }));
    for (let s = 0; s < 4; s++) ui.seatSelect.appendChild(el('option', { value: String(s), text: t('replay.asSeat', { name: playerName(s), n: s }) }));
    ui.seatSelect.addEventListener('change', () => {
      state.seat = ui.seatSelect.value === 'all' ? 'all' : Number(ui.seatSelect.value);
      renderViewer();
    });
    ui.byCard = el('input', { type: 'checkbox', class: 'r-check', testid: 'replay-by-card' });
    ui.byCard.checked = state.byCard;
    ui.byCard.addEventListener('change', () => {
      state.byCard = ui.byCard.checked;
      writePref(PREF_BYCARD, state.byCard);
      state.sub = null;
      renderViewer();
    });

    const btn = (testid, icon, title, fn) => {
      const b = el('button', { type: 'button', class: 'r-btn r-step', testid, title, 'aria-label': title }, svgIcon(icon));
      b.addEventListener('click', () => { stopPlay(); fn(); });
      return b;
    };
    ui.first = btn('replay-first', ICONS.first, t('replay.first'), () => setPos(state.hi, 0, null));
    ui.prevTrick = btn('replay-prev-trick', ICONS.prevTrick, t('replay.prevTrick'), prevTrick);
    ui.prev = btn('replay-prev', ICONS.prev, t('replay.prev'), prev);
    ui.next = btn('replay-next', ICONS.next, t('replay.next'), next);
    ui.nextTrick = btn('replay-next-trick', ICONS.nextTrick, t('replay.nextTrick'), nextTrick);
    ui.last = btn('replay-last', ICONS.last, t('replay.last'), () => setPos(state.hi, Math.max(0, frames().length - 1), null));
    ui.counter = el('span', { class: 'r-counter', testid: 'replay-counter', 'aria-live': 'polite' });
    ui.stepName = el('span', { class: 'r-stepname' });
    ui.play = el('button', { type: 'button', class: 'r-btn r-auto', testid: 'replay-play' });
    ui.play.addEventListener('click', () => togglePlay());
    ui.speed = el('select', { class: 'r-select r-speed', testid: 'replay-speed', 'aria-label': t('replay.speed') });
    for (const s of SPEEDS) ui.speed.appendChild(el('option', { value: String(s), text: `${s}×` }));
    ui.speed.value = String(state.speed);
    ui.speed.addEventListener('change', () => {
      state.speed = Number(ui.speed.value) || 1;
      writePref(PREF_SPEED, state.speed);
      if (state.playing) schedule();
    });
    ui.slider = el('input', { type: 'range', class: 'r-slider', testid: 'replay-slider', min: '0', max: '0', step: '1', 'aria-label': t('replay.position') });
    ui.slider.addEventListener('input', () => { stopPlay(); setPos(state.hi, Number(ui.slider.value) || 0, null); });

    ui.root.appendChild(el('div', { class: 'r-controls' },
      el('div', { class: 'r-ctl-group r-ctl-selects' },
        el('label', { class: 'r-ctl' }, el('span', { class: 'r-ctl-label', text: t('replay.hand') }), ui.handSelect),
        el('label', { class: 'r-ctl' }, el('span', { class: 'r-ctl-label', text: t('replay.seatView') }), ui.seatSelect)),
      el('div', { class: 'r-ctl-group r-ctl-steps' },
        ui.first, ui.prevTrick, ui.prev,
        el('span', { class: 'r-counter-box' }, ui.counter, ui.stepName),
        ui.next, ui.nextTrick, ui.last),
      el('div', { class: 'r-ctl-group r-ctl-play' },
        ui.play, ui.speed,
        el('label', { class: 'r-ctl r-ctl-check', title: t('replay.byCardTitle') }, ui.byCard, el('span', { text: t('replay.byCard') }))),
      el('div', { class: 'r-ctl-group r-ctl-slider' }, ui.slider)));

    // the table and the side panel
    ui.board = el('div', { class: 'r-board' });
    ui.seats = [];
    for (let s = 0; s < 4; s++) {
      const seat = el('div', { class: 'r-seat', testid: `replay-seat-${s}`, 'data-seat': s });
      ui.seats.push(seat);
      ui.board.appendChild(seat);
    }
    ui.center = el('div', { class: 'r-center' });
    ui.board.appendChild(ui.center);
    ui.side = el('aside', { class: 'r-side' });
    ui.result = el('div', { class: 'r-result-slot' });
    ui.info = el('div', { class: 'r-info' });
    ui.log = el('ol', { class: 'r-log', testid: 'replay-log', 'aria-label': t('replay.log') });
    ui.side.appendChild(el('div', { class: 'r-side-inner' }, ui.result, ui.info,
      el('section', { class: 'r-panel r-log-panel' }, el('h3', { class: 'r-panel-title', text: t('replay.log') }), ui.log)));
    ui.root.appendChild(el('div', { class: 'r-main' }, el('div', { class: 'r-board-wrap' }, ui.board), ui.side));
    ui.root.appendChild(el('p', { class: 'r-keys' },
      el('span', { text: t('replay.keys') }), ' ',
      el('button', { type: 'button', class: 'r-btn r-small help-btn', testid: 'replay-help-button', 'aria-label': t('replay.help.title'), title: t('replay.help.title'), text: '?', onclick: () => toggleHelp() })));
    wrap.replaceChildren(ui.root);
    renderHelp();
  }

  // ------------------------------------------------------------------ the keys' help (`?`)

  function toggleHelp(open = !state.helpOpen) {
    state.helpOpen = open;
    renderHelp();
  }

  function renderHelp() {
    if (ui.help) ui.help.remove();
    ui.help = null;
    if (!state.helpOpen || !state.data) return;
    const close = el('button', { type: 'button', class: 'btn primary', testid: 'replay-help-close', text: t('common.close'), onclick: () => toggleHelp(false) });
    const box = el('div', { class: 'help-overlay', testid: 'replay-help', role: 'dialog', 'aria-modal': 'true', 'aria-label': t('replay.help.title') },
      el('div', { class: 'help-box' },
        el('h2', { text: t('replay.help.title') }),
        el('dl', {}, HELP_KEYS.map(([k, d]) => [el('dt', {}, el('kbd', { text: k })), el('dd', { text: t(d) })])),
        el('p', { class: 'muted small-text', text: t('replay.help.mouse') }),
        close));
    box.addEventListener('click', (e) => { if (e.target === box) toggleHelp(false); });
    ui.help = box;
    wrap.appendChild(box);
    close.focus();
  }

  function handLabel(h, i) {
    const parts = [t('replay.handN', { n: h.number })];
    if (h.result === 'redeal') {
      parts.push(t('replay.redealHand'));
    } else {
      parts.push(t('replay.dealerIs', { name: playerName(h.dealer) }));
      parts.push(h.level === 'flag' ? t('replay.flag') : t('replay.levelIs', { level: levelText(h.level) }));
      if (h.trump && h.trump !== 'flag') parts.push(t('replay.trumpName.' + h.trump));
      if (h.result && typeof h.result === 'object') parts.push(t('replay.pIs', { p: h.result.points }));
    }
    return parts.join(' · ');
  }

  function setAttrs() {
    const f = frame();
    wrap.dataset.seatView = String(state.seat);
    if (state.data) {
      wrap.dataset.hand = String(hand().number);
      wrap.dataset.frame = String(state.fi);
      wrap.dataset.frames = String(frames().length);
      wrap.dataset.step = f ? f.step : '';
      if (state.sub !== null) wrap.dataset.play = String(state.sub);
      else delete wrap.dataset.play;
      wrap.dataset.playing = state.playing ? 'true' : 'false';
      wrap.dataset.loaded = 'true';
    } else {
      for (const k of ['hand', 'frame', 'frames', 'step', 'play', 'playing']) delete wrap.dataset[k];
      wrap.dataset.loaded = state.loading ? 'loading' : 'false';
    }
  }

  function renderViewer() {
    if (disposed || !state.data || !ui.root) return;
    const fs = frames();
    setAttrs();
    // the address keeps the position (for a table's game), so a reload or a shared link comes back here
    if (state.source && state.source.kind === 'table') {
      const hash = `#h=${hand().number}&f=${state.fi}&s=${state.seat}`;
      if (location.hash !== hash) history.replaceState(history.state, '', location.pathname + location.search + hash);
    }
    ui.handSelect.value = String(hand().number);
    ui.seatSelect.value = String(state.seat);
    ui.slider.max = String(Math.max(0, fs.length - 1));
    ui.slider.value = String(state.fi);
    ui.slider.disabled = fs.length <= 1;
    ui.counter.textContent = fs.length ? `${state.fi + 1} / ${fs.length}` : '0 / 0';
    const f = frame();
    const snap = snapshot();
    let stepText = f ? stepName(f, snap) : '';
    if (snap && snap.sub) stepText = t('replay.playing', { trick: f.trick, k: snap.sub.k, len: snap.sub.len });
    ui.stepName.textContent = stepText;
    ui.first.disabled = state.fi === 0 && state.sub === null;
    ui.prev.disabled = !canPrev();
    ui.next.disabled = !canNext();
    ui.last.disabled = state.fi >= fs.length - 1 && state.sub === null;
    ui.prevTrick.disabled = state.fi === 0 && state.sub === null;
    ui.nextTrick.disabled = !hasNextTrick();
    paintPlay();

    if (!snap) {
      for (const s of ui.seats) s.replaceChildren();
      ui.center.replaceChildren(el('div', { class: 'r-empty', text: t('replay.noFrames') }));
      ui.result.replaceChildren();
      ui.info.replaceChildren();
      renderLog(null);
      return;
    }
    renderSeats(snap);
    renderCenter(snap);
    renderResult(snap);
    renderInfo(snap);
    renderLog(snap);
  }

  function stepName(f, snap) {
    if (f.step === 'trick') return t('replay.step.trick', { n: f.trick });
    if (f.step === 'over') return t('replay.step.over', { n: f.trick });
    if (STEPS.includes(f.step) || f.step === 'countdown') return t('replay.step.' + f.step);
    return sharedOr('phase.' + f.step, f.step);
  }

  // ------------------------------------------------------------------ the log

  // ------------------------------------------------------------------ autoplay

  function delay() {
    const f = frame();
    let ms = 1400;
    if (state.sub !== null) ms = 650;
    else if (f && f.step === 'over') ms = 4000;
    else if (f && isTrickStep(f.step)) ms = 1500;
    return ms / state.speed;
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(tick, delay());
  }

  function tick() {
    if (!state.playing || disposed) return;
    if (next()) { schedule(); return; }
    if (gotoHand(state.hi + 1)) { schedule(); return; }
    stopPlay();
  }

  function togglePlay() {
    if (state.playing) { stopPlay(); return; }
    if (!state.data) return;
    // at the very end, start again from this hand's beginning
    if (!canNext() && state.hi + 1 >= state.data.hands.length) setPos(state.hi, 0, null);
    state.playing = true;
    paintPlay();
    setAttrs();
    schedule();
  }

  function stopPlay() {
    clearTimeout(timer);
    timer = null;
    if (!state.playing) return;
    state.playing = false;
    paintPlay();
    setAttrs();
  }

  function paintPlay() {
    if (!ui.play) return;
    ui.play.replaceChildren(svgIcon(state.playing ? ICONS.pause : ICONS.play));
    ui.play.classList.toggle('r-on', state.playing);
    ui.play.setAttribute('aria-pressed', state.playing ? 'true' : 'false');
    const label = state.playing ? t('replay.pause') : t('replay.autoplay');
    ui.play.title = label;
    ui.play.setAttribute('aria-label', label);
  }

  // ------------------------------------------------------------------ keys

  function onKey(ev) {
    if (!state.data || ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const tg = ev.target;
    const tag = tg && tg.tagName;
    if (tag === 'TEXTAREA' || (tg && tg.isContentEditable)) return;
    if (tag === 'INPUT' && tg.type !== 'checkbox') return; // the slider moves by itself
    // a closed <select> would change its value with ← → Home End: here they step, as everywhere else
    if (tag === 'SELECT' && !['ArrowLeft', 'ArrowRight', 'Home', 'End', ' ', 'Spacebar'].includes(ev.key)) return;
    if (ev.key === '?') { toggleHelp(); ev.preventDefault(); return; }
    if (ev.key === 'Escape' && state.helpOpen) { toggleHelp(false); ev.preventDefault(); return; }
    if (state.helpOpen && (ev.key === ' ' || ev.key === 'Spacebar' || ev.key === 'Enter')) return; // the dialog's button
    let done = true;
    switch (ev.key) {
      case 'ArrowRight': stopPlay(); next(); break;
      case 'ArrowLeft': stopPlay(); prev(); break;
      case 'ArrowDown': case 'PageDown': stopPlay(); gotoHand(state.hi + 1); break;
      case 'ArrowUp': case 'PageUp': stopPlay(); gotoHand(state.hi - 1); break;
      case 'Home': stopPlay(); setPos(state.hi, 0, null); break;
      case 'End': stopPlay(); setPos(state.hi, Math.max(0, frames().length - 1), null); break;
      case ' ': case 'Spacebar': togglePlay(); break;
      default: done = false;
    }
    if (done) ev.preventDefault();
  }

  function onKeyUp(ev) {
    // a focused button must not also be pressed by the space that toggled autoplay
    const tg = ev.target;
    if (state.data && (ev.key === ' ' || ev.key === 'Spacebar') && tg && (tg.tagName === 'BUTTON' || (tg.tagName === 'INPUT' && tg.type === 'checkbox'))) ev.preventDefault();
  }

  // ------------------------------------------------------------------ the parts' drawing modules
  const ctx = {
    state, ui, wrap, hand, frames, frame, teamOf, seatsOf, setPos, next, gotoHand, stopPlay, accept, upload, loadGames,
    errorBox, setAttrs, teamName, playerName, seatTitle, stepName,
  };
  const { renderPicker } = Object.assign(ctx, makePicker(ctx));
  const { renderSeats, renderCenter } = Object.assign(ctx, makeBoard(ctx));
  const { renderResult } = Object.assign(ctx, makeResult(ctx));
  const { renderInfo, renderLog } = Object.assign(ctx, makePanels(ctx));

  document.addEventListener('keydown', onKey);
  document.addEventListener('keyup', onKeyUp);
  offs.push(() => document.removeEventListener('keydown', onKey));
  offs.push(() => document.removeEventListener('keyup', onKeyUp));
  offs.push(onLangChange(() => {
    if (state.data) {
      const keep = { hi: state.hi, fi: state.fi, sub: state.sub };
      buildViewer();
      state.hi = keep.hi; state.fi = keep.fi; state.sub = keep.sub;
      renderViewer();
    } else {
      renderAll();
    }
  }));

  // ------------------------------------------------------------------ start

  if (fromTable) {
    loadFromTable();
  } else {
    renderPicker();
    loadGames();
  }

  return () => {
    disposed = true;
    clearTimeout(timer);
    for (const off of offs) {
      try { if (typeof off === 'function') off(); } catch (_) { /* ignore */ }
    }
  };
}
