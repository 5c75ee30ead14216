// An event's public page /events/{id}: what the players open on their phones. The current round's pairings
// (table, the two pairs, Play / Watch for an online table, the result, why the pairing was made), the earlier
// rounds folded away, the standings. It asks the server every 3 s and draws the page again only when the
// event's "version" changed, keeping the scroll position and which sections are open.
import { t, getLang, onLangChange } from './i18n.js';
import * as api from './api.js';
import { el } from './dom.js';
import {
  ev, every, errorText, eventPath, formatText, isMine, levelText, organisePath, pairBlock, pairLabel, pairMap,
  presetText, statusTag,
} from './events.js';

/** A game's score in words: "A : 9" (each side's final level, its circle when past the first). */
function sideLevel(s) {
  if (!s) return '—';
  const c = Number(s.circle) > 1 ? t('ev.circleShort', { n: s.circle }) : '';
  return levelText(s.level) + c;
}

/** The games of a tie as small lines: "Game 1 · a1 won · A : 9 · by time · replay". */
export function gamesEl(pairing, pairs) {
  const games = pairing.games || [];
  if (!games.length) return null;
  const list = el('ol', { class: 'ev-games' });
  games.forEach((g, i) => {
    const winner = g.winner === 'a' ? pairs.get(pairing.a) : g.winner === 'b' ? pairs.get(pairing.b) : null;
    list.appendChild(el('li', { class: 'ev-game' },
      el('span', { class: 'ev-game-no', text: t('ev.gameN', { n: i + 1 }) }),
      el('span', { class: 'ev-game-score', text: `${sideLevel(g.a)} : ${sideLevel(g.b)}` }),
      winner ? el('span', { class: 'ev-game-won', text: t('ev.won', { pair: winner.code || winner.name }) }) : null,
      g.lost_by_penalty ? el('span', { class: 'tag flag-tag', text: t('ev.lostByPenalty') }) : null,
      g.forfeit ? el('span', { class: 'tag off-tag', text: t('ev.forfeit') }) : null,
      g.by_time ? el('span', { class: 'tag', text: t('ev.byTime') }) : null,
      g.replay ? el('a', { class: 'ev-replay', href: g.replay, 'data-link': '', text: t('ev.replay') }) : null));
  });
  return list;
}

/** The result of a tie in the middle between the two pairs: "2 : 1", or "vs" before it is known. */
function scoreEl(pairing) {
  const r = pairing.result;
  if (!pairing.b) return el('div', { class: 'ev-score bye', text: t('ev.byeShort') });
  if (!r) return el('div', { class: 'ev-score', text: t('ev.vs') });
  const wins = Array.isArray(r.wins) ? r.wins : [r.winner === 'a' ? 1 : 0, r.winner === 'b' ? 1 : 0];
  return el('div', { class: 'ev-score done', testid: 'pairing-score' }, `${wins[0]} : ${wins[1]}`);
}

/** One pairing as a card. opts.round: its round; opts.actions: extra buttons (the organiser's). */
// Why a pairing was made: the server words it in English (chaodipi.tournament.pairing); a Chinese page reads it
// in Chinese, part by part (the parts are joined by "; "); a part not known here stays as it came.
const WHY_ZH = [
  [/^round 1: drawn$/, () => '第1轮：抽签'],
  [/^drawn at random in session (\d+)$/, (m) => `第${m[1]}场次随机抽签`],
  [/^seeded draw in session (\d+): seed (\d+) v seed (\d+)$/, (m) => `第${m[1]}场次按种子：${m[2]}号种子对${m[3]}号种子`],
  [/^bye: fewest byes so far \((\d+)\), the highest seed among them$/, (m) => `轮空：轮空最少（${m[1]}次）中种子最高的组合`],
  [/^bye: fewest byes so far \((\d+)\), drawn among them$/, (m) => `轮空：轮空最少（${m[1]}次）的组合中抽签`],
  [/^bye: lowest-ranked pair without a bye$/, () => '轮空：未轮空过的组合中排名最低'],
  [/^bye: lowest-ranked pair with the fewest byes \((\d+)\)$/, (m) => `轮空：轮空最少（${m[1]}次）的组合中排名最低`],
  [/^bye: drawn among the lowest-ranked pairs without a bye$/, () => '轮空：未轮空过的组合中排名最低者抽签'],
  [/^bye: drawn among the lowest-ranked pairs with the fewest byes$/, () => '轮空：轮空最少的组合中排名最低者抽签'],
  [/^forbidden pairing(?: \((.*)\))?: no pairing avoided it$/, (m) => `禁止的对阵${m[1] ? '（' + m[1] + '）' : ''}：无法避免`],
  [/^rematch \(met (once|twice|(\d+) times) before\): no pairing avoided it$/, (m) => `重复对阵（此前已相遇${m[1] === 'once' ? 1 : m[1] === 'twice' ? 2 : m[2]}次）：无法避免`],
  [/^equal points \((-?\d+)\)$/, (m) => `同分（${m[1]}分）`],
  [/^points (-?\d+) v (-?\d+): no other pair on (-?\d+)$/, (m) => `${m[1]}分对${m[2]}分：没有其他${m[3]}分的组合`],
  [/^points (-?\d+) v (-?\d+): pair \d+ already met (?:the other pair|every other pair) on (-?\d+)$/, (m) => `${m[1]}分对${m[2]}分：已与其他${m[3]}分的组合交过手`],
  [/^points (-?\d+) v (-?\d+): no pair on (-?\d+) left to meet$/, (m) => `${m[1]}分对${m[2]}分：没有可对阵的${m[3]}分组合`],
];

/** A pairing's reason in the page's language. */
export function whyText(why) {
  if (getLang() !== 'zh') return why;
  return why.split('; ').map((part) => {
    for (const [re, say] of WHY_ZH) {
      const m = part.match(re);
      if (m) return say(m);
    }
    return part;
  }).join('；');
}

/** Whether a round was played in several sessions (场次): only then do its cards name their session. */
export function severalSessions(r) {
  return new Set((r.pairings || []).map((p) => p.session)).size > 1;
}

/** Keep a fold's state in `open` only where the reader changed it from its default (a fold opened or closed as
 * drawn fires `toggle` too, and must not be taken for the reader's choice). */
export function remember(open, key, isOpen, byDefault) {
  open.delete(key);
  open.delete('!' + key);
  if (isOpen !== byDefault) open.add(isOpen ? key : '!' + key);
}

export function pairingCard(event, round, pairing, opts = {}) {
  const pairs = opts.pairs || pairMap(event);
  const a = pairs.get(pairing.a);
  const b = pairing.b == null ? null : pairs.get(pairing.b);
  const r = pairing.result;
  const mine = isMine(a) || isMine(b);
  const card = el('article', { class: 'ev-pairing' + (mine ? ' mine' : '') + (r ? ' done' : ''), testid: 'pairing', 'data-table': String(pairing.table), 'data-round': String(round.number) });
  card.appendChild(el('div', { class: 'ev-table-no', 'aria-label': t('ev.tableN', { n: pairing.table }) },
    el('span', { class: 'ev-table-word', text: t('ev.table') }),
    el('b', { text: String(pairing.table) }),
    pairing.session != null && pairing.session !== '' && opts.sessions ? el('span', { class: 'ev-session', text: t('ev.sessionN', { n: pairing.session }) }) : null));
  const sideA = pairBlock(a);
  const sideB = pairBlock(b);
  if (r && r.winner === 'a') sideA.classList.add('winner');
  if (r && r.winner === 'b') sideB.classList.add('winner');
  if (r && r.winner === 'a' && b) sideB.classList.add('loser');
  if (r && r.winner === 'b') sideA.classList.add('loser');
  const body = el('div', { class: 'ev-pairing-body' },
    el('div', { class: 'ev-sides' }, sideA, scoreEl(pairing), sideB));
  if (r) {
    const winner = r.winner === 'a' ? a : b;
    const m = Array.isArray(r.margins) ? r.margins[r.winner === 'a' ? 0 : 1] : null;
    body.appendChild(el('p', { class: 'ev-result', testid: 'pairing-result' },
      el('b', { text: t('ev.won', { pair: pairLabel(winner) }) }),
      r.forfeit ? el('span', { class: 'tag off-tag', text: t('ev.forfeit') }) : null,
      m != null && !r.forfeit ? el('span', { class: 'muted', text: t('ev.marginN', { n: m > 0 ? `+${m}` : String(m) }) }) : null));
  }
  const games = gamesEl(pairing, pairs);
  if (games) body.appendChild(games);
  const foot = el('div', { class: 'ev-pairing-foot' });
  if (pairing.online_table != null && b && !r && round.status === 'playing') {
    const play = isMine(a) || isMine(b);
    if (play) foot.appendChild(el('a', { class: 'btn primary small', href: `/t/${encodeURIComponent(pairing.online_table)}`, 'data-link': '', testid: 'play-link', text: t('ev.play') }));
    else if (event.options ? event.options.watchers !== false : true) foot.appendChild(el('a', { class: 'btn small watch-btn', href: `/t/${encodeURIComponent(pairing.online_table)}?watch=1`, 'data-link': '', testid: 'watch-link', text: t('ev.watch') }));
  }
  if (pairing.penalties && pairing.penalties.length) foot.appendChild(el('span', { class: 'tag flag-tag', text: t('ev.penaltiesN', { n: pairing.penalties.length }) }));
  if (opts.actions) foot.appendChild(opts.actions);
  if (foot.childNodes.length) body.appendChild(foot);
  if (pairing.why) body.appendChild(el('p', { class: 'ev-why', testid: 'pairing-why', text: whyText(pairing.why) }));
  card.appendChild(body);
  return card;
}

/** The pairs in the order of their codes (a1, a2, … a10), those without one last. */
export function byCode(pairs) {
  const key = (p) => { const m = String(p.code || '').match(/^([a-z]*)(\d+)$/i); return m ? [m[1], Number(m[2])] : ['~', p.id]; };
  return pairs.slice().sort((x, y) => { const a = key(x); const b = key(y); return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]; });
}

/** A round's heading line: its label, best of 3, its game limit, its status. */
export function roundMeta(round) {
  return el('span', { class: 'ev-round-meta' },
    round.best_of === 3 ? el('span', { class: 'tag ev-bo3', text: t('ev.bestOf3') }) : null,
    el('span', { class: 'tag', text: round.game_minutes ? t('ev.minutesN', { n: round.game_minutes }) : t('ev.noLimit') }),
    statusTag(round.status));
}

export function roundLabel(round) {
  const l = round.label || '';
  const m = l.match(/^(Round|Swiss) (\d+)$/);
  if (m) return t(m[1] === 'Round' ? 'ev.roundN' : 'ev.swissN', { n: m[2] });
  const key = { 'Round of 16': 'ev.r16', 'Quarter-final': 'ev.qf', 'Semi-final': 'ev.sf', Final: 'ev.final' }[l];
  return key ? t(key) : l || t('ev.roundN', { n: round.number });
}

/** The standings as a table: rank, pair, points, level margin, Buchholz, played. */
export function standingsEl(event) {
  const pairs = pairMap(event);
  const rows = event.standings || [];
  if (!rows.length || !rows.some((s) => s.played || s.byes)) return el('p', { class: 'muted', testid: 'no-standings', text: t('ev.noStandings') });
  const table = el('table', { class: 'ev-standings', testid: 'standings' },
    el('thead', {}, el('tr', {},
      el('th', { class: 'num', text: '#' }),
      el('th', { text: t('ev.st.pair') }),
      el('th', { class: 'num', title: t('ev.st.pointsLong'), text: t('ev.st.points') }),
      el('th', { class: 'num', title: t('ev.st.marginLong'), text: t('ev.st.margin') }),
      el('th', { class: 'num', title: t('ev.st.buchholzLong'), text: t('ev.st.buchholz') }),
      el('th', { class: 'num', title: t('ev.st.playedLong'), text: t('ev.st.played') }))));
  const tb = el('tbody');
  for (const s of rows) {
    const p = pairs.get(s.pair);
    const margin = Number(s.margin) || 0;
    tb.appendChild(el('tr', { class: 'st-' + s.status + (isMine(p) ? ' mine' : ''), testid: 'standing-row', 'data-pair': String(s.pair) },
      el('td', { class: 'num rank', text: String(s.rank) }),
      el('td', { class: 'st-pair' },
        el('span', { class: 'st-name' }, p && p.code ? el('span', { class: 'ev-code', text: p.code }) : null, el('span', { text: p ? p.name : String(s.pair) })),
        s.status !== 'in' ? el('span', { class: 'tag off-tag', text: t(`ev.st.${s.status}`) }) : null,
        el('span', { class: 'st-record muted', text: t('ev.st.record', { won: s.won ?? 0, lost: s.lost ?? 0, byes: s.byes ?? 0 }) })),
      el('td', { class: 'num strong', text: String(s.points ?? 0) }),
      el('td', { class: 'num ' + (margin > 0 ? 'plus' : margin < 0 ? 'minus' : ''), text: margin > 0 ? `+${margin}` : margin < 0 ? `−${-margin}` : '0' }),
      el('td', { class: 'num', text: String(s.buchholz ?? 0) }),
      el('td', { class: 'num', text: String(s.played ?? 0) })));
  }
  table.appendChild(tb);
  return el('div', { class: 'ev-table-wrap' }, table);
}

/** The event's heading: name, format, preset, online or physical, organiser, status. */
export function eventHead(event, extra) {
  const o = event.options || {};
  return el('div', { class: 'page-head ev-head' },
    el('div', { class: 'page-head-text' },
      el('h1', { testid: 'event-title' }, el('span', { text: event.name || '' }), statusTag(event.status, 'event-status')),
      el('p', { class: 'ev-facts muted' },
        el('span', { text: formatText(event.format) }),
        el('span', { text: presetText(event.preset) }),
        el('span', { text: o.online === false ? t('ev.physical') : t('ev.online') }),
        el('span', { text: t('ev.pairsN', { n: (event.pairs || []).filter((p) => !p.withdrawn).length }) }),
        event.organiser ? el('span', { text: t('ev.by', { name: event.organiser }) }) : null)),
    extra || null);
}

export function mountEventPage(root, id) {
  const state = { event: null, error: '', version: null, open: new Set(), openSet: false, pairsOpen: false };
  let disposed = false;
  const page = el('section', { class: 'info-page ev-page ev-public', testid: 'event-page', 'data-event': String(id) });
  root.appendChild(page);

  async function load() {
    try {
      const data = await ev.get(id);
      if (disposed) return;
      state.error = '';
      if (data.version === state.version && state.event) return;
      state.event = data;
      state.version = data.version;
    } catch (e) {
      if (disposed) return;
      state.error = errorText(e);
      if (state.event && e.status !== 404) { paintError(); return; }
    }
    paint();
  }

  function paintError() {
    const box = page.querySelector('[data-testid=event-error]');
    if (box) { box.textContent = state.error; box.hidden = !state.error; }
  }

  function details(key, summary, content, openByDefault) {
    const open = state.open.has(key) || (openByDefault && !state.open.has('!' + key));
    const d = el('details', { class: 'ev-details panel', 'data-section': key, open }, el('summary', {}, summary), content);
    d.addEventListener('toggle', () => remember(state.open, key, d.open, !!openByDefault));
    return d;
  }

  function paint() {
    if (disposed) return;
    const y = window.scrollY;
    page.replaceChildren();
    const e = state.event;
    if (!e) {
      page.appendChild(el('div', { class: 'page-message' },
        el('p', { class: state.error ? 'form-error' : 'muted', text: state.error ? t('ev.loadFailed', { error: state.error }) : t('common.loading') }),
        el('a', { class: 'btn', href: '/events', 'data-link': '', text: t('ev.back') })));
      return;
    }
    document.title = `${e.name} · 炒地皮`;
    const you = e.you || {};
    const tools = el('div', { class: 'ev-head-actions' },
      el('a', { class: 'btn small ghost', href: '/events', 'data-link': '', text: t('ev.allEvents') }),
      you.organiser || you.referee ? el('a', { class: 'btn small primary', href: organisePath(e.id), 'data-link': '', testid: 'organise-link', text: t('ev.organise') }) : null);
    page.appendChild(eventHead(e, tools));
    page.appendChild(el('p', { class: 'form-error', testid: 'event-error', hidden: !state.error, text: state.error }));
    page.appendChild(el('div', { class: 'ev-live muted', 'aria-hidden': 'true' }, el('span', { class: 'ev-dot' }), t('ev.live')));

    const rounds = (e.rounds || []).filter((r) => r.status !== 'drawn');
    // a pair's code is its number in the latest round: none shown before a round is published
    const pairs = pairMap(rounds.length ? e : { pairs: (e.pairs || []).map((p) => ({ ...p, code: '' })) });
    if (!rounds.length) e.pairs = [...pairs.values()];
    const current = rounds.length ? rounds[rounds.length - 1] : null;
    const main = el('div', { class: 'ev-public-grid' });
    const left = el('div', { class: 'ev-col' });
    const right = el('div', { class: 'ev-col' });
    main.append(left, right);
    page.appendChild(main);

    if (current) {
      const cur = el('section', { class: 'panel ev-round current', testid: 'current-round', 'data-round': String(current.number) },
        el('div', { class: 'ev-round-head' },
          el('h2', { class: 'panel-title', text: roundLabel(current) }),
          roundMeta(current)));
      const pairings = (current.pairings || []).slice().sort((x, y) => (isMine(pairs.get(y.a)) || isMine(pairs.get(y.b))) - (isMine(pairs.get(x.a)) || isMine(pairs.get(x.b))) || x.table - y.table);
      const list = el('div', { class: 'ev-pairings' });
      for (const p of pairings) list.appendChild(pairingCard(e, current, p, { pairs, sessions: severalSessions(current) }));
      cur.appendChild(list);
      left.appendChild(cur);
    } else {
      left.appendChild(el('section', { class: 'panel ev-round', testid: 'no-round' },
        el('h2', { class: 'panel-title', text: t('ev.noRoundTitle') }),
        el('p', { class: 'muted', text: e.status === 'registering' ? t('ev.noRoundYet') : t('ev.noRound') })));
    }
    for (const r of rounds.slice(0, -1).reverse()) {
      const list = el('div', { class: 'ev-pairings' });
      for (const p of r.pairings || []) list.appendChild(pairingCard(e, r, p, { pairs, sessions: severalSessions(r) }));
      left.appendChild(details('round-' + r.number, el('span', { class: 'ev-sum' }, el('b', { text: roundLabel(r) }), roundMeta(r)), list, false));
    }

    right.appendChild(el('section', { class: 'panel ev-standings-panel' },
      el('div', { class: 'ev-round-head' },
        el('h2', { class: 'panel-title', text: t('ev.standings') }),
        el('a', { class: 'link-btn', href: ev.standingsCsv(e.id), download: '', text: t('ev.csv') })),
      standingsEl(e),
      (e.standings || []).some((s) => s.played || s.byes) ? el('p', { class: 'field-hint', text: t('ev.st.legend') }) : null));

    const plist = el('div', { class: 'ev-pair-list' });
    for (const p of byCode(e.pairs || [])) plist.appendChild(pairBlock(p, { out: true }));
    if (!(e.pairs || []).length) plist.appendChild(el('p', { class: 'muted', text: t('ev.noPairs') }));
    right.appendChild(details('pairs', el('span', { class: 'ev-sum' }, el('b', { text: t('ev.pairsTitle') }), el('span', { class: 'tag', text: String((e.pairs || []).length) })), plist, !rounds.length));

    window.scrollTo(0, y);
  }

  paint();
  load();
  const stop = every(3000, load);
  const offLang = onLangChange(paint);
  const offAcc = api.onAccountChange(() => { state.version = null; });
  return () => { disposed = true; stop(); offLang(); offAcc(); };
}

export { eventPath };
