// The replay viewer: a finished game, frame by frame (/replay, /replay/{table}/{game}).
// The server replays the record and sends every frame with the four seats' views
// (GET /api/tables/{t}/games/{g}/replay, POST /api/replay); this page only draws them.
import * as i18n from './i18n.js';
import { t, getLang, onLangChange } from './i18n.js';
import { parseCards, cardEl, cardPoints, isTrump, suitSvg } from './cards.js';
import { getJSON, postJSON, listTables } from './api.js';
import { el } from './dom.js';

// -- words ----------------------------------------------------------------------------------

// This page's words are in the main catalogues, under `replay.`.
/** Whether the catalogue has `key` (without a console warning when it has not). */
const hasShared = (key) => i18n.has(key);

/** A shared catalogue's word when it has one (e.g. `preset.anchao`), else `fallback`. */
function sharedOr(key, fallback, params) {
  return hasShared(key) ? t(key, params) : fallback;
}

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

/** The multiset `codes` less `minus` (each removed once). */
function without(codes, minus) {
  const out = codes.slice();
  for (const c of minus) {
    const i = out.indexOf(c);
    if (i >= 0) out.splice(i, 1);
  }
  return out;
}

const teamOf = (seat) => seat % 2;
const isTrickStep = (step) => step === 'trick' || step === 'over';

function levelText(level) {
  if (level === null || level === undefined) return '?';
  if (level === 'flag') return t('replay.flag');
  return level === 'T' ? '10' : String(level);
}

function progressText(p) {
  if (!p) return '';
  const lv = levelText(p.level);
  return p.circle > 1 ? t('replay.levelCircle', { level: lv, circle: p.circle }) : lv;
}

function roomName(room) {
  if (!room) return '';
  const plus = room.endsWith('+');
  const base = plus ? room.slice(0, -1) : room;
  const own = t('replay.preset.' + base);
  const name = sharedOr('preset.' + base, own === 'replay.preset.' + base ? base : own);
  return plus ? t('replay.roomHouse', { name }) : name;
}

/** The trump as a small element: a suit symbol, 无主, 扛旗, or "?" while unknown. */
function trumpEl(trump, cls = 'r-trump') {
  if (trump === 's' || trump === 'h' || trump === 'c' || trump === 'd') {
    const wrap = el('span', { class: `${cls} r-suit-${trump}`, title: t('replay.suit.' + trump) });
    wrap.appendChild(suitSvg(trump, 'r-suit-icon'));
    return wrap;
  }
  if (trump === 'nt') return el('span', { class: `${cls} r-nt`, text: t('replay.noTrump') });
  if (trump === 'flag') return el('span', { class: `${cls} r-flagtrump`, text: t('replay.flag') });
  return el('span', { class: `${cls} r-unknown`, text: '?', title: t('replay.trumpUnknown') });
}

/** One card, small, marked as trump/level card when `mark` = {level, trump} is given. */
function smallCard(code, mark, extra = {}) {
  const opts = { small: true, ...extra };
  if (mark) { opts.level = mark.level; opts.trump = mark.trump; }
  return cardEl(code, opts);
}

function backCard(extraClass) {
  const c = cardEl('', { small: true, back: true });
  delete c.dataset.card;
  c.dataset.back = 'true';
  if (extraClass) c.classList.add(extraClass);
  return c;
}

function cardsRow(codes, mark, cls = 'r-cards', opts = {}) {
  const row = el('div', { class: cls });
  for (const c of parseCards(codes)) row.appendChild(smallCard(c, mark, opts));
  return row;
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
    const marks = [];
    for (let s = 0; s < 4; s++) {
      const v = views[s];
      const own = v.trump || (v.sort_trump && v.sort_trump !== '?' ? v.sort_trump : null);
      marks[s] = { level, trump: own };
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
      dealer, level, trump, all, seat,
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
    let record;
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
      record = JSON.parse(text);
    } catch (_) {
      state.error = t('replay.error.notJson');
      renderAll();
      return;
    }
    state.loading = true;
    renderAll();
    try {
      const data = await postJSON('/api/replay', record);
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

  let pasteArea = null;
  function renderPicker() {
    setAttrs();
    const keepPaste = pasteArea ? pasteArea.value : '';
    const page = el('div', { class: 'r-page r-picker' });
    page.appendChild(el('div', { class: 'r-pick-head' },
      el('h1', { class: 'r-title', text: t('replay.title') }),
      el('p', { class: 'r-sub', text: t('replay.pickIntro') })));

    // open a record: a file, or pasted text
    const fileInput = el('input', { type: 'file', accept: '.json,application/json', testid: 'replay-upload', id: 'replay-upload', class: 'r-file-input' });
    fileInput.addEventListener('change', () => {
      const file = fileInput.files && fileInput.files[0];
      if (file) readFile(file);
    });
    const drop = el('label', { class: 'r-drop', for: 'replay-upload' },
      el('span', { class: 'r-drop-icon', 'aria-hidden': 'true', text: '⇪' }),
      el('span', { class: 'r-drop-main', text: t('replay.dropMain') }),
      el('span', { class: 'r-drop-sub', text: t('replay.dropSub') }));
    drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('r-over'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('r-over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('r-over');
      const file = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      if (file) readFile(file);
    });
    pasteArea = el('textarea', { class: 'r-paste', testid: 'replay-paste', rows: '4', spellcheck: 'false', placeholder: t('replay.pastePlaceholder'), 'aria-label': t('replay.pasteLabel') });
    pasteArea.value = keepPaste;
    const pasteBtn = el('button', { type: 'button', class: 'r-btn r-primary', testid: 'replay-paste-load', text: t('replay.pasteLoad'), disabled: state.loading });
    pasteBtn.addEventListener('click', () => upload(pasteArea.value, t('replay.pasted')));

    const openPanel = el('section', { class: 'r-panel r-open' },
      el('h2', { class: 'r-panel-title', text: t('replay.openTitle') }),
      fileInput, drop,
      el('div', { class: 'r-or', text: t('replay.or') }),
      el('label', { class: 'r-field-label', for: 'replay-paste-area', text: t('replay.pasteLabel') }),
      pasteArea,
      el('div', { class: 'r-row-end' }, state.loading ? el('span', { class: 'r-loading-inline', role: 'status' }, el('span', { class: 'r-spinner', 'aria-hidden': 'true' }), t('replay.loading')) : null, pasteBtn),
      state.error ? errorBox(state.error) : null);
    pasteArea.id = 'replay-paste-area';

    // finished games on this server
    const list = el('ul', { class: 'r-games', testid: 'replay-games' });
    if (state.games === null) {
      list.appendChild(el('li', { class: 'r-games-empty' }, el('span', { class: 'r-spinner', 'aria-hidden': 'true' }), t('replay.loading')));
    } else if (state.gamesError) {
      list.appendChild(el('li', { class: 'r-games-empty', text: t('replay.gamesError', { error: state.gamesError }) }));
    } else if (!state.games.length) {
      list.appendChild(el('li', { class: 'r-games-empty', text: t('replay.noGames') }));
    } else {
      for (const g of state.games) {
        const tb = g.table;
        const names = (tb.seats || []).map((s, n) => (s ? s.name : t('replay.seatLabel', { n })));
        const href = `/replay/${tb.id}/${g.game}`;
        const meta = el('span', { class: 'r-game-meta' },
          el('span', { class: 'r-chip', text: roomName(tb.room || (tb.rules && tb.rules.preset)) }),
          el('span', { class: 'r-muted', text: t('replay.gameN', { n: g.game }) }),
          tb.status === 'playing' ? el('span', { class: 'r-chip r-chip-live', text: t('replay.tablePlaying') }) : null,
          g.winner !== null && g.winner !== undefined ? el('span', { class: 'r-muted', text: t('replay.winnerShort', { team: teamName(g.winner) }) }) : null,
          g.levels ? el('span', { class: 'r-muted', text: `${progressText(g.levels[0])} : ${progressText(g.levels[1])}` }) : null);
        list.appendChild(el('li', { class: 'r-game' },
          el('a', { href, 'data-link': '', class: 'r-game-link', 'data-table': tb.id, 'data-game': g.game },
            el('span', { class: 'r-game-title' },
              el('strong', { text: tb.name || t('replay.tableN', { id: tb.id }) }),
              el('span', { class: 'r-muted', text: ` #${tb.id}` })),
            meta,
            el('span', { class: 'r-game-players', text: names.join(' · ') }),
            el('span', { class: 'r-game-go', 'aria-hidden': 'true', text: '›' }))));
      }
    }
    const gamesPanel = el('section', { class: 'r-panel r-list' },
      el('div', { class: 'r-panel-head' },
        el('h2', { class: 'r-panel-title', text: t('replay.gamesTitle') }),
        el('button', { type: 'button', class: 'r-btn r-small', text: t('replay.refresh'), onclick: () => { loadGames(); renderPicker(); } })),
      list);

    page.appendChild(el('div', { class: 'r-pick-grid' }, openPanel, gamesPanel));
    wrap.replaceChildren(page);
  }

  function readFile(file) {
    if (file.size > 2 * 1024 * 1024) {
      state.error = t('replay.error.tooLarge');
      renderPicker();
      return;
    }
    const reader = new FileReader();
    reader.onload = () => upload(String(reader.result || ''), file.name);
    reader.onerror = () => { state.error = t('replay.error.read'); renderPicker(); };
    reader.readAsText(file);
  }

  // ------------------------------------------------------------------ the viewer

  const ui = {};

  function teamName(team) {
    return t('replay.team' + team);
  }

  function playerName(s) {
    const p = state.data && state.data.players ? state.data.players[s] : null;
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
          ? el('span', { class: 'r-chip r-chip-win', text: t('replay.winner', { team: teamName(d.winner), names: `${playerName(d.winner)} · ${playerName(d.winner + 2)}` }) })
          : el('span', { class: 'r-chip', text: t('replay.noWinner') }),
        d.levels ? el('span', { class: 'r-chip', title: t('replay.finalLevels') },
          t('replay.finalLevelsShort', { a: progressText(d.levels[0]), b: progressText(d.levels[1]) })) : null,
        d.credits ? el('span', { class: 'r-chip', text: t('replay.credits', { a: d.credits[0], b: d.credits[1] }) }) : null),
      el('div', { class: 'r-players' },
        [0, 1].map((team) => el('span', { class: `r-team r-team-${team}` },
          el('span', { class: 'r-team-dot', 'aria-hidden': 'true' }),
          el('strong', { text: teamName(team) }),
          el('span', { text: `${seatTitle(team)} · ${seatTitle(team + 2)}` })))));
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
    ui.root.appendChild(el('p', { class: 'r-keys', text: t('replay.keys') }));
    wrap.replaceChildren(ui.root);
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

  /** The seats' places around the table: the seat watched from at the bottom, play goes counter-clockwise. */
  function positions() {
    const me = state.seat === 'all' ? 0 : state.seat;
    const pos = {};
    pos[me] = 'bottom';
    pos[(me + 1) % 4] = 'right';
    pos[(me + 2) % 4] = 'top';
    pos[(me + 3) % 4] = 'left';
    return pos;
  }

  function renderSeats(snap) {
    const pos = positions();
    const dealerTeam = snap.dealer === null || snap.dealer === undefined ? null : teamOf(snap.dealer);
    for (let s = 0; s < 4; s++) {
      const box = ui.seats[s];
      const p = pos[s];
      box.className = `r-seat r-pos-${p} r-team-${teamOf(s)}`;
      if (snap.dealer === s) box.classList.add('r-dealer');
      if (snap.toAct === s) box.classList.add('r-to-act');
      if (snap.left.has(s)) box.classList.add('r-left');
      if (!snap.all && snap.seat === s) box.classList.add('r-me');
      if (snap.shown && snap.shown.done && snap.shown.winner === s) box.classList.add('r-won');
      box.dataset.pos = p;

      const side = dealerTeam === null ? null : teamOf(s) === dealerTeam ? 'dealer' : 'scoring';
      const head = el('div', { class: 'r-seat-head' },
        el('span', { class: 'r-seat-no', text: String(s) }),
        el('span', { class: 'r-seat-name', text: playerName(s), title: seatTitle(s) }),
        snap.dealer === s ? el('span', { class: 'r-badge r-badge-dealer', title: t('replay.dealer'), text: t('replay.dealerMark') }) : null,
        side ? el('span', { class: `r-side-tag r-side-${side}`, text: t('replay.side.' + side) }) : null,
        el('span', { class: 'r-team-tag', text: teamName(teamOf(s)) }),
        snap.left.has(s) ? el('span', { class: 'r-badge r-badge-left', text: t('replay.leftMark') }) : null,
        el('span', { class: 'r-count', title: t('replay.cardsInHand'), text: t('replay.nCards', { n: snap.sizes[s] }) }),
        snap.toAct === s ? el('span', { class: 'r-turn', title: t('replay.toAct'), 'aria-label': t('replay.toAct'), text: '●' }) : null);

      const row = el('div', { class: 'r-hand', testid: `replay-hand-${s}` });
      const codes = snap.hands[s];
      if (codes) {
        const mark = snap.marks[s];
        const kitty = snap.fromKitty[s] ? snap.fromKitty[s].slice() : [];
        let group = null;
        for (const c of codes) {
          const g = isTrump(c, mark.level, mark.trump) ? 'T' : c.slice(-1);
          const card = smallCard(c, mark);
          if (group !== null && g !== group) card.classList.add('r-gap');
          group = g;
          const ki = kitty.indexOf(c);
          if (ki >= 0) { kitty.splice(ki, 1); card.classList.add('from-kitty', 'r-from-kitty'); }
          row.appendChild(card);
        }
        row.classList.add('r-open');
        if (!codes.length) { row.classList.add('r-hand-none'); row.appendChild(el('span', { class: 'r-hand-empty', text: t('replay.noCards') })); }
      } else {
        row.classList.add('r-closed');
        const n = snap.sizes[s] || 0;
        for (let i = 0; i < n; i++) row.appendChild(backCard());
        if (!n) { row.classList.add('r-hand-none'); row.appendChild(el('span', { class: 'r-hand-empty', text: t('replay.noCards') })); }
      }
      row.dataset.count = String(codes ? codes.length : snap.sizes[s] || 0);
      box.replaceChildren(head, row);
    }
  }

  function renderCenter(snap) {
    const pos = positions();
    const trickBox = el('div', { class: 'r-trick', testid: 'replay-trick' });
    const shown = snap.shown;
    if (shown) {
      trickBox.dataset.done = shown.done ? 'true' : 'false';
      if (shown.done) trickBox.dataset.winner = String(shown.winner);
      for (const [s, cards] of shown.plays) {
        const won = shown.done && shown.winner === s;
        const play = el('div', { class: `r-play r-at-${pos[s]}` + (won ? ' r-play-won' : '') + (s === shown.leader ? ' r-play-lead' : ''), 'data-seat': s },
          cardsRow(cards, { level: snap.level, trump: snap.trump }, 'r-cards r-play-cards'),
          el('span', { class: 'r-play-who' },
            el('span', { class: `r-no r-no-${teamOf(s)}`, text: String(s) }),
            playerName(s),
            s === shown.leader ? el('span', { class: 'r-lead-tag', text: t('replay.lead') }) : null,
            won ? el('span', { class: 'r-win-tag', text: t('replay.wins') }) : null));
        trickBox.appendChild(play);
      }
    }
    // the middle: trump, level, points
    const hud = el('div', { class: 'r-hud' });
    const f = snap.f;
    hud.appendChild(el('div', { class: 'r-hud-row' },
      el('span', { class: 'r-hud-item' }, el('span', { class: 'r-hud-label', text: t('replay.level') }), el('strong', { class: 'r-hud-level', text: levelText(snap.level) })),
      el('span', { class: 'r-hud-item' }, el('span', { class: 'r-hud-label', text: t('replay.trump') }), trumpEl(snap.trump))));
    if (snap.phase === 'play' || snap.phase === 'over' || isTrickStep(f.step)) {
      const trickNo = snap.sub ? f.trick : shown && shown.done ? f.trick : (snap.tricks ? snap.tricks.length + (shown ? 1 : 0) : 0);
      hud.appendChild(el('div', { class: 'r-hud-row' },
        el('span', { class: 'r-hud-item' }, el('span', { class: 'r-hud-label', text: t('replay.scoring') }), el('strong', { class: 'r-hud-points', testid: 'replay-points', text: String(snap.points) })),
        trickNo ? el('span', { class: 'r-hud-item' }, el('span', { class: 'r-hud-label', text: t('replay.trickNo') }), el('strong', { text: String(trickNo) })) : null));
    }
    if (shown && shown.done) {
      hud.appendChild(el('div', { class: 'r-hud-trick' + (shown.points ? ' r-has-points' : '') },
        t('replay.trickWon', { name: playerName(shown.winner), points: shown.points })));
    } else if (!shown) {
      hud.appendChild(el('div', { class: 'r-hud-step', text: stepName(f, snap) }));
    }
    trickBox.appendChild(hud);
    ui.center.replaceChildren(trickBox);
  }

  function renderInfo(snap) {
    const mark = { level: snap.level, trump: snap.trump };
    const blocks = [];

    // bids
    const bidList = el('ul', { class: 'r-bids' });
    if (!snap.bids.length) bidList.appendChild(el('li', { class: 'r-muted', text: snap.h.result === 'redeal' ? t('replay.noBids') : t('replay.noBidsYet') }));
    snap.bids.forEach((b, i) => {
      const li = el('li', { class: 'r-bid' + (b.valid === false ? ' r-void' : '') },
        el('span', { class: 'r-bid-kind', text: b.fry ? t('replay.fryTag') : i === 0 ? t('replay.bidTag') : t('replay.overTag') }),
        el('span', { class: 'r-bid-who', text: playerName(b.player) }));
      if (b.cards !== undefined && b.cards !== null) {
        li.appendChild(cardsRow(b.cards, null, 'r-cards r-tiny-cards'));
        if (b.choose) li.appendChild(el('span', { class: 'r-bid-choose' }, '→ ', trumpEl(b.choose, 'r-trump r-trump-small')));
      } else {
        li.appendChild(el('span', { class: 'r-dark', title: t('replay.darkBidTitle'), text: t('replay.darkBid') }));
      }
      if (b.valid === false) li.appendChild(el('span', { class: 'r-void-tag', text: t('replay.void') }));
      bidList.appendChild(li);
    });
    blocks.push(el('section', { class: 'r-panel r-bids-panel' }, el('h3', { class: 'r-panel-title', text: t('replay.bids') }), bidList));

    // the scoring side's points and point cards
    if (snap.dealer !== null && snap.dealer !== undefined && snap.h.result !== 'redeal') {
      const scoringTeam = 1 - teamOf(snap.dealer);
      const cards = [];
      for (const tk of snap.tricks || []) {
        if (teamOf(tk.winner) !== scoringTeam) continue;
        for (const [, c] of tk.plays) for (const code of parseCards(c)) if (cardPoints(code)) cards.push(code);
      }
      const rank = (c) => ({ 5: 0, T: 1, K: 2 }[c.slice(0, -1)] ?? 3);
      cards.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
      blocks.push(el('section', { class: 'r-panel r-points-panel' },
        el('h3', { class: 'r-panel-title' },
          t('replay.scoringPoints', { team: teamName(scoringTeam) }),
          el('strong', { class: 'r-points-big', text: String(snap.points) })),
        cards.length ? cardsRow(cards, null, 'r-cards r-tiny-cards r-wrap') : el('p', { class: 'r-muted', text: t('replay.noPointCards') })));
    }

    // the kitty
    const kittyBox = el('div', { class: 'r-kitty', testid: 'replay-kitty' });
    if (snap.kitty && snap.kitty.length) {
      kittyBox.appendChild(cardsRow(snap.kitty, mark, 'r-cards r-tiny-cards r-wrap'));
      const pts = snap.kitty.reduce((a, c) => a + cardPoints(c), 0);
      kittyBox.appendChild(el('p', { class: 'r-muted', text: t('replay.kittyPoints', { n: pts }) }));
    } else if (snap.kittyHeld) {
      kittyBox.appendChild(el('p', { class: 'r-muted', text: t('replay.kittyInHand') }));
    } else if (snap.h.result === 'redeal') {
      kittyBox.appendChild(el('p', { class: 'r-muted', text: t('replay.noKitty') }));
    } else {
      kittyBox.dataset.hidden = 'true';
      kittyBox.appendChild(el('div', { class: 'r-cards r-tiny-cards' }, Array.from({ length: 8 }, () => backCard('r-kitty-back'))));
      kittyBox.appendChild(el('p', { class: 'r-muted', text: t('replay.kittyHidden') }));
    }
    blocks.push(el('section', { class: 'r-panel r-kitty-panel' }, el('h3', { class: 'r-panel-title', text: t('replay.kitty') }), kittyBox));
    ui.info.replaceChildren(...blocks);
  }

  function renderResult(snap) {
    const res = snap.result;
    if (!res || typeof res !== 'object') {
      if (snap.f.step === 'redeal') {
        ui.result.replaceChildren(el('section', { class: 'r-panel r-result r-result-redeal', testid: 'replay-result' },
          el('h3', { class: 'r-panel-title', text: t('replay.step.redeal') }),
          el('p', { text: t('replay.redealText') }),
          nextHandButton()));
      } else {
        ui.result.replaceChildren();
      }
      return;
    }
    const dealerTeam = teamOf(snap.dealer);
    const scoringTeam = 1 - dealerTeam;
    const gainerTeam = res.gainer === 'dealer' ? dealerTeam : res.gainer === 'scoring' ? scoringTeam : null;
    const box = el('section', { class: 'r-panel r-result', testid: 'replay-result' });
    box.appendChild(el('h3', { class: 'r-panel-title' }, t('replay.resultTitle', { n: snap.h.number })));

    // the headline: p against the threshold, and who goes up
    const reached = res.points >= res.threshold;
    box.appendChild(el('div', { class: 'r-res-score' + (reached ? ' r-reached' : '') },
      el('span', { class: 'r-res-p', text: String(res.points) }),
      el('span', { class: 'r-res-vs', text: reached ? '≥' : '<' }),
      el('span', { class: 'r-res-th', text: String(res.threshold) }),
      el('span', { class: 'r-res-verdict', text: res.table === 'scoring' ? t('replay.tableScoring') : t('replay.tableDealer') })));
    if (gainerTeam !== null && res.nominal_gain !== undefined) {
      box.appendChild(el('p', { class: 'r-res-gain', text: t('replay.gain', { team: teamName(gainerTeam), side: t('replay.side.' + res.gainer), n: res.nominal_gain }) }));
    }
    if (res.special) box.appendChild(el('p', { class: 'r-res-special', text: sharedOr('special.' + res.special, t('replay.special', { name: res.special })) }));
    if (res.game_winner) {
      const wt = res.game_winner === 'dealer' ? dealerTeam : scoringTeam;
      box.appendChild(el('p', { class: 'r-res-gamewin', text: t('replay.gameWon', { team: teamName(wt) }) }));
    }

    // the sums
    const rows = el('dl', { class: 'r-res-sums' });
    const row = (k, v) => rows.append(el('dt', { text: k }), el('dd', {}, v));
    row(t('replay.trickPoints'), String(res.trick_points));
    if (res.kou_di) row(t('replay.kouDi'), t('replay.kouDiValue', { points: res.kitty_points, m: res.multiplier, n: res.kou_di }));
    else row(t('replay.kouDi'), t('replay.kouDiNone'));
    for (const [what, n] of res.adjustments || []) row(what, (n > 0 ? '+' : '') + n);
    box.appendChild(rows);

    // the levels before and after
    if (res.before && res.after) {
      const lv = el('div', { class: 'r-res-levels' });
      for (const [sideName, team] of [['dealer', dealerTeam], ['scoring', scoringTeam]]) {
        const b = res.before[sideName];
        const a = res.after[sideName];
        const changed = b && a && (b.level !== a.level || b.circle !== a.circle);
        lv.appendChild(el('div', { class: 'r-res-level' + (changed ? ' r-changed' : '') },
          el('span', { class: `r-team-dot r-dot-${team}`, 'aria-hidden': 'true' }),
          el('span', { class: 'r-res-level-who', text: `${teamName(team)} (${t('replay.side.' + sideName)})` }),
          el('span', { class: 'r-res-level-val', text: `${progressText(b)} → ${progressText(a)}` })));
      }
      box.appendChild(lv);
    }
    if (res.credits && typeof res.credits === 'object') {
      box.appendChild(el('p', { class: 'r-muted', text: t('replay.creditsChange', { d: fmtSigned(res.credits.dealer), s: fmtSigned(res.credits.scoring) }) }));
    }
    if (res.escapes && res.escapes.length) {
      box.appendChild(el('p', { class: 'r-res-special', text: t('replay.escapes', { list: res.escapes.map((e) => (typeof e === 'object' ? JSON.stringify(e) : String(e))).join(', ') }) }));
    }
    // the kitty
    if (snap.kitty && snap.kitty.length) {
      box.appendChild(el('div', { class: 'r-res-kitty' },
        el('span', { class: 'r-hud-label', text: t('replay.kitty') }),
        cardsRow(snap.kitty, { level: snap.level, trump: snap.trump }, 'r-cards r-tiny-cards r-wrap')));
    }
    if (res.notes && res.notes.length) {
      const notes = el('details', { class: 'r-res-notes' }, el('summary', { text: t('replay.notes') }));
      const ul = el('ul');
      for (const n of res.notes) ul.appendChild(el('li', { text: n }));
      notes.appendChild(ul);
      box.appendChild(notes);
    }
    box.appendChild(nextHandButton());
    ui.result.replaceChildren(box);
  }

  function fmtSigned(n) {
    return n > 0 ? `+${n}` : String(n);
  }

  function nextHandButton() {
    const last = state.hi + 1 >= state.data.hands.length;
    return el('div', { class: 'r-row-end' },
      last
        ? el('span', { class: 'r-muted', text: t('replay.gameEnd') })
        : el('button', { type: 'button', class: 'r-btn r-primary', testid: 'replay-next-hand', text: t('replay.nextHand'), onclick: () => { stopPlay(); gotoHand(state.hi + 1); } }));
  }

  // ------------------------------------------------------------------ the log

  function visibleEvents(snap) {
    const log = snap.h.log.slice(0, snap.events);
    if (snap.all) return log;
    const s = snap.seat;
    const bids = snap.views[s].bids || [];
    const out = [];
    let bi = 0;
    for (const e of log) {
      if ((e.e === 'dealt' || e.e === 'kitty_taken' || e.e === 'buried') && e.p !== s) continue;
      if (e.e === 'bid' || e.e === 'fried') {
        const seen = bids[bi];
        bi += 1;
        if (seen && e.p !== s) {
          const copy = { ...e };
          if (seen.cards === undefined) { delete copy.cards; delete copy.detail; }
          if (seen.valid === undefined) delete copy.valid;
          out.push(copy);
          continue;
        }
        if (seen && e.p === s && seen.valid === undefined) {
          const copy = { ...e };
          delete copy.valid;
          out.push(copy);
          continue;
        }
      }
      out.push(e);
    }
    return out;
  }

  function renderLog(snap) {
    ui.log.replaceChildren();
    if (!snap) return;
    const events = visibleEvents(snap);
    const mark = { level: snap.level, trump: snap.trump };
    let dealt = null;
    let trickNo = 0;
    for (const e of events) {
      if (e.e === 'dealt') {
        if (!dealt) {
          dealt = { n: 0, li: el('li', { class: 'r-ev r-ev-dealt' }) };
          ui.log.appendChild(dealt.li);
        }
        dealt.n += 1;
        dealt.li.replaceChildren(el('span', { class: 'r-ev-text', text: snap.all ? t('replay.ev.dealtAll', { n: dealt.n }) : t('replay.ev.dealtMine', { n: dealt.n }) }));
        continue;
      }
      dealt = null;
      if (e.e === 'trick') trickNo += 1;
      ui.log.appendChild(eventItem(e, mark, trickNo));
    }
    if (!ui.log.children.length) ui.log.appendChild(el('li', { class: 'r-ev r-muted', text: t('replay.logEmpty') }));
    const last = ui.log.lastElementChild;
    if (last) {
      last.classList.add('r-ev-last');
      // scroll the log itself, not the page
      ui.log.scrollTop = ui.log.scrollHeight;
    }
  }

  /** A catalogue text with {cards} drawn as small cards (the shared `ev.*` strings, else this page's). */
  function richLine(text, cards, mark) {
    const out = el('span', { class: 'r-ev-text' });
    for (const part of text.split(/(\{cards\})/)) {
      if (part === '{cards}') { if (cards) out.appendChild(cardsRow(cards, mark, 'r-cards r-tiny-cards r-ev-cards')); }
      else if (part) out.appendChild(document.createTextNode(part));
    }
    return out;
  }

  function eventItem(e, mark, trickNo) {
    const li = el('li', { class: `r-ev r-ev-${e.e}`, 'data-e': e.e });
    const who = e.p !== undefined && e.p !== null ? playerName(e.p) : '';
    const params = { name: who, points: e.points || 0, detail: e.detail || '', kind: e.e, no: trickNo };
    if (e.e === 'frying_over') {
      const m = /^trump (\w+)/.exec(e.detail || '');
      params.trump = m ? trumpWord(m[1]) : (e.detail || '');
    } else if ((e.e === 'bid' || e.e === 'fried') && e.detail) {
      params.trump = trumpWord(e.detail);
    }
    // the shared catalogue's words for events (ev.*), as the table page writes them
    let key = 'ev.' + e.e;
    if (e.e === 'bid' || e.e === 'fried') {
      if (!e.cards) key += '.dark';
      else if (e.detail) key += '.choose';
    }
    if (e.e === 'trick' && e.points) key = 'ev.trick.points';
    let text;
    let cardsInText = false;
    if (hasShared(key)) {
      const raw = t(key, Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'cards')));
      text = raw;
      cardsInText = raw.includes('{cards}');
    } else {
      let own = 'replay.ev.' + e.e;
      if (e.e === 'trick') {
        const m = /^(\d+) points?$/.exec(e.detail || '');
        params.points = m ? m[1] : '';
        own = m && Number(m[1]) ? 'replay.ev.trickPoints' : 'replay.ev.trick';
      }
      text = t(own) === own ? t('replay.ev.other', params) : t(own, params);
    }
    if (who) li.appendChild(el('span', { class: `r-no r-no-${teamOf(e.p)}`, title: seatTitle(e.p), text: String(e.p) }));
    if (e.e === 'trick') li.appendChild(el('span', { class: 'r-ev-no', text: `#${trickNo}` }));
    li.appendChild(richLine(text, e.cards, mark));
    if (e.cards && !cardsInText) li.appendChild(cardsRow(e.cards, mark, 'r-cards r-tiny-cards r-ev-cards'));
    if (e.e === 'bid' && e.detail && !cardsInText && /^(s|h|c|d|nt)$/.test(e.detail)) li.appendChild(el('span', { class: 'r-bid-choose' }, '→ ', trumpEl(e.detail, 'r-trump r-trump-small')));
    if ((e.e === 'bid' || e.e === 'fried') && e.valid === false) li.appendChild(el('span', { class: 'r-void-tag', text: sharedOr('bid.void', t('replay.void')) }));
    if (e.points && !/\{points\}/.test(hasShared(key) ? (i18nRaw(key) || '') : '')) {
      li.appendChild(el('span', { class: 'r-ev-points' + (e.points < 0 ? ' r-neg' : ''), text: fmtSigned(e.points) }));
    } else if (e.points) {
      li.classList.add(e.points < 0 ? 'r-ev-neg' : 'r-ev-pos');
    }
    const detailShown = ['left', 'throw_failed', 'kou_di', 'kitty_trump'].includes(e.e)
      || (e.e === 'settled' && !(hasShared(key) && (i18nRaw(key) || '').includes('{detail}')))
      || (e.e === 'frying_over' && e.detail && e.detail.includes(';'));
    if (detailShown && e.detail) li.appendChild(el('span', { class: 'r-ev-detail', text: e.detail }));
    return li;
  }

  /** A shared catalogue text without its placeholders filled (to see which it has). */
  function i18nRaw(key) {
    return hasShared(key) ? t(key) : null;
  }

  function trumpWord(code) {
    if (!['s', 'h', 'c', 'd', 'nt', 'flag'].includes(code)) return code;
    return sharedOr('trump.' + code, t('replay.trumpName.' + code));
  }

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
