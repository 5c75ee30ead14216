// A room's leaderboard /rooms/{room}/leaderboard: sorted by rating, credits, games or win rate, 20 a page; bots are
// marked as bots; the logged-in player's row is marked. The sort and page stay in the address (?sort=&page=).
import { t, onLangChange } from './i18n.js';
import * as api from './api.js';
import { el } from './dom.js';
import { ROOM_NAMES, fmtRating, fmtSigned, fmtWinRate, pager, playerName, roomTitle } from './format.js';

export { ROOM_NAMES };

const SORTS = ['rating', 'credits', 'games', 'winrate'];

export function mountLeaderboard(root, room) {
  const params = new URLSearchParams(location.search);
  const state = {
    sort: SORTS.includes(params.get('sort')) ? params.get('sort') : 'rating',
    page: Math.max(1, parseInt(params.get('page'), 10) || 1),
    data: null, error: '', loading: true,
  };
  let disposed = false;
  let ticket = 0;
  const page = el('section', { class: 'info-page board-page', testid: 'leaderboard', 'data-room': room });
  root.appendChild(page);

  async function load() {
    const my = ++ticket;
    state.loading = true;
    paint();
    try {
      const data = await api.getLeaderboard(room, state.sort, state.page);
      if (disposed || my !== ticket) return;
      state.data = data;
      state.error = '';
    } catch (e) {
      if (disposed || my !== ticket) return;
      state.error = e.message;
    }
    state.loading = false;
    paint();
  }

  function open(sort, pageNo) {
    state.sort = sort;
    state.page = pageNo;
    const q = `?sort=${sort}` + (pageNo > 1 ? `&page=${pageNo}` : '');
    history.replaceState(null, '', location.pathname + q);
    load();
  }

  function paint() {
    if (disposed) return;
    page.replaceChildren();
    const me = api.currentAccount();
    page.appendChild(el('div', { class: 'page-head' },
      el('div', { class: 'page-head-text' },
        el('h1', { text: t('board.heading', { room: roomTitle(room) }) }),
        el('p', { class: 'muted', text: t('board.hint') }))));
    // the other rooms' boards
    page.appendChild(el('nav', { class: 'room-tabs', 'aria-label': t('board.rooms') },
      ROOM_NAMES.map((r) => el('a', { class: 'tab' + (r === room ? ' on' : ''), href: api.leaderboardPath(r), 'data-link': '', 'aria-current': r === room ? 'page' : null, text: roomTitle(r) }))));
    const tabs = el('div', { class: 'sort-tabs', role: 'tablist', 'aria-label': t('board.sortBy') });
    for (const s of SORTS) {
      tabs.appendChild(el('button', { type: 'button', role: 'tab', class: 'tab' + (s === state.sort ? ' on' : ''), testid: 'sort-' + s, 'aria-selected': s === state.sort ? 'true' : 'false', text: t(`board.sort.${s}`),
        onclick: () => { if (s !== state.sort) open(s, 1); } }));
    }
    page.appendChild(tabs);
    const panel = el('section', { class: 'panel list-section' });
    page.appendChild(panel);
    const d = state.data;
    if (!d) {
      panel.appendChild(el('p', { class: state.error ? 'form-error' : 'muted', text: state.error ? t('board.failed', { error: state.error }) : t('common.loading') }));
      return;
    }
    if (state.error) panel.appendChild(el('p', { class: 'form-error', text: t('board.failed', { error: state.error }) }));
    if (!d.rows.length) {
      panel.appendChild(el('p', { class: 'muted', testid: 'board-empty', text: t('board.empty') }));
      return;
    }
    panel.appendChild(el('p', { class: 'muted small-text', text: t('board.total', { n: d.total }) }));
    const list = el('div', { class: 'rows board-rows', 'data-sort': d.sort || state.sort });
    // the column the board is sorted by stands out
    const sorted = { rating: 'board.rating', credits: 'board.credits', games: 'board.games', winrate: 'board.winrate' }[d.sort || state.sort];
    const cls = (key, base) => base + (key === sorted ? ' sorted' : '');
    list.appendChild(el('div', { class: 'row row-head', 'aria-hidden': 'true' },
      ['board.rank', 'board.player', 'board.rating', 'board.games', 'board.wins', 'board.winrate', 'board.credits'].map((k) => el('span', { class: cls(k, ''), text: t(k) }))));
    for (const r of d.rows) {
      const bot = r.kind === 'bot';
      const mine = me && me.username === r.username;
      list.appendChild(el('div', { class: 'row board-row' + (bot ? ' bot' : '') + (mine ? ' me' : ''), testid: 'board-row', 'data-username': r.username, 'data-kind': r.kind },
        el('span', { class: 'cell rank', text: String(r.rank) }),
        el('span', { class: 'cell who' },
          el('a', { href: api.playerPath(r.username), 'data-link': '', text: bot ? playerName(r.username, 'bot') : r.username }),
          bot ? el('span', { class: 'tag bot-tag', testid: 'bot-mark', text: t('board.bot') }) : null,
          mine ? el('span', { class: 'tag me-tag', text: t('player.itsYou') }) : null),
        el('span', { class: cls('board.rating', 'cell num'), 'data-label': t('board.rating'), text: fmtRating(r.ordinal) }),
        el('span', { class: cls('board.games', 'cell num'), 'data-label': t('board.games'), text: String(r.games ?? 0) }),
        el('span', { class: cls('board.wins', 'cell num'), 'data-label': t('board.wins'), text: String(r.wins ?? 0) }),
        el('span', { class: cls('board.winrate', 'cell num'), 'data-label': t('board.winrate'), text: fmtWinRate(r.wins, r.games, r.win_rate) }),
        el('span', { class: cls('board.credits', 'cell num'), 'data-label': t('board.credits'), text: r.credits === null || r.credits === undefined ? '—' : fmtSigned(r.credits) })));
    }
    panel.appendChild(list);
    const nav = pager(d.page, d.pages, (n) => open(state.sort, n), 'board-pager');
    if (nav) panel.appendChild(nav);
  }

  load();
  const offLang = onLangChange(() => { document.title = `${t('board.title')} · 炒地皮`; paint(); });
  return () => { disposed = true; offLang(); };
}
