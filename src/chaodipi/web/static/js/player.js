// A player's page /p/{username}: the ratings in each room (the ordinal μ − 3σ, games, wins), the credits in each
// room and in all, the games played (each opens in the replay viewer), and the credits ledger, page by page.
import { t, has, onLangChange } from './i18n.js';
import * as api from './api.js';
import { el } from './dom.js';
import { ROOM_NAMES, fmtRating, fmtSigned, fmtTime, fmtWinRate, pager, playerName, roomTitle } from './format.js';

export function mountPlayer(root, username) {
  const state = { data: null, error: '', status: 0, gamesPage: 1, ledgerPage: 1, loading: true };
  let disposed = false;
  const page = el('section', { class: 'info-page player-page', testid: 'player-page', 'data-username': username });
  root.appendChild(page);

  async function load() {
    state.loading = true;
    try {
      const data = await api.getPlayer(username, state.gamesPage, state.ledgerPage);
      if (disposed) return;
      state.data = data;
      state.error = '';
    } catch (e) {
      if (disposed) return;
      state.error = e.message;
      state.status = e.status;
    }
    state.loading = false;
    paint();
  }

  function ratingOf(room) {
    const list = (state.data && state.data.ratings) || [];
    return list.find((r) => r.room === room) || null;
  }

  function roomCards() {
    const credits = (state.data && state.data.credits) || {};
    const grid = el('div', { class: 'stat-grid', testid: 'player-rooms' });
    for (const room of ROOM_NAMES) {
      const r = ratingOf(room);
      grid.appendChild(el('div', { class: 'stat-card room-' + room, testid: 'player-room-' + room, 'data-room': room },
        el('div', { class: 'stat-head' },
          el('span', { class: 'stat-room', text: roomTitle(room) }),
          room !== 'house' ? el('a', { class: 'board-link small-text', href: api.leaderboardPath(room), 'data-link': '', text: t('rooms.leaderboard') }) : null),
        el('div', { class: 'stat-main' },
          el('span', { class: 'stat-num', testid: 'rating-' + room, text: r ? fmtRating(r.ordinal) : '—' }),
          el('span', { class: 'stat-unit', text: t('player.rating') })),
        r ? el('div', { class: 'stat-sub muted', text: t('player.muSigma', { mu: fmtRating(r.mu), sigma: fmtRating(r.sigma) }) }) : null,
        el('dl', { class: 'stat-facts' },
          el('dt', { text: t('player.games') }), el('dd', { text: String(r ? r.games : 0) }),
          el('dt', { text: t('player.wins') }), el('dd', { text: r ? `${r.wins} (${fmtWinRate(r.wins, r.games)})` : '0' }),
          el('dt', { text: t('player.credits') }), el('dd', { class: 'amount ' + sign(credits[room]), testid: 'credits-' + room, text: fmtSigned(credits[room] || 0) }))));
    }
    return grid;
  }

  const sign = (n) => (Number(n) > 0 ? 'plus' : Number(n) < 0 ? 'minus' : 'zero');

  function gamesSection() {
    const games = (state.data && state.data.games) || { page: 1, pages: 1, rows: [] };
    const sec = el('section', { class: 'panel list-section', testid: 'player-games' },
      el('h2', { class: 'panel-title', text: t('player.gamesTitle') }));
    if (!games.rows.length) {
      sec.appendChild(el('p', { class: 'muted', text: t('player.noGames') }));
      return sec;
    }
    const list = el('div', { class: 'rows games-rows' });
    list.appendChild(el('div', { class: 'row row-head', 'aria-hidden': 'true' },
      ['player.when', 'player.room', 'player.table', 'player.players', 'player.result', ''].map((k) => el('span', { text: k ? t(k) : '' }))));
    for (const g of games.rows) {
      const result = g.won === true ? t('player.won') : g.won === false ? t('player.lost') : g.finished_at ? t('player.drawn') : t('player.unfinished');
      list.appendChild(el('div', { class: 'row game-row', testid: 'game-row', 'data-table': String(g.table), 'data-game': String(g.game) },
        el('span', { class: 'cell when', 'data-label': t('player.when'), text: fmtTime(g.finished_at || g.started_at) }),
        el('span', { class: 'cell', 'data-label': t('player.room'), text: has(`rooms.${g.room}.title`) ? roomTitle(g.room) : String(g.room || '') }),
        el('span', { class: 'cell', 'data-label': t('player.table') },
          el('a', { href: '/t/' + g.table, 'data-link': '', text: t('lobby.tableNo', { id: g.table }) }), ' · ', t('player.gameNo', { n: g.game })),
        el('span', { class: 'cell players', 'data-label': t('player.players') },
          (g.players || []).map((name, n) => el('span', { class: 'pl' + (n === g.seat ? ' me' : ''), text: n === g.seat ? name : playerName(name) || t('seat.number', { n }) }))),
        el('span', { class: 'cell result ' + (g.won === true ? 'plus' : g.won === false ? 'minus' : ''), 'data-label': t('player.result'), text: result }),
        el('span', { class: 'cell' },
          g.replay && g.finished_at !== null ? el('a', { class: 'btn small', href: g.replay, 'data-link': '', testid: 'game-replay', text: t('player.replay') }) : null)));
    }
    sec.appendChild(list);
    const nav = pager(games.page, games.pages, (n) => { state.gamesPage = n; load(); }, 'games-pager');
    if (nav) sec.appendChild(nav);
    return sec;
  }

  function ledgerSection() {
    const ledger = (state.data && state.data.ledger) || { page: 1, pages: 1, rows: [] };
    const sec = el('section', { class: 'panel list-section', testid: 'player-ledger' },
      el('h2', { class: 'panel-title', text: t('player.ledgerTitle') }));
    if (!ledger.rows.length) {
      sec.appendChild(el('p', { class: 'muted', text: t('player.noLedger') }));
      return sec;
    }
    const list = el('div', { class: 'rows ledger-rows' });
    list.appendChild(el('div', { class: 'row row-head', 'aria-hidden': 'true' },
      ['player.amount', 'player.reason', 'player.room', 'player.where', 'player.when'].map((k) => el('span', { text: t(k) }))));
    for (const r of ledger.rows) {
      const where = [];
      if (r.table !== null && r.table !== undefined) where.push(el('a', { href: '/t/' + r.table, 'data-link': '', text: t('lobby.tableNo', { id: r.table }) }));
      if (r.game !== null && r.game !== undefined) where.push(' · ', t('player.gameNo', { n: r.game }));
      if (r.hand !== null && r.hand !== undefined) where.push(' · ', t('player.handNo', { n: r.hand }));
      list.appendChild(el('div', { class: 'row ledger-row', testid: 'ledger-row', 'data-reason': r.reason, 'data-amount': String(r.amount) },
        el('span', { class: 'cell amount ' + sign(r.amount), 'data-label': t('player.amount'), text: fmtSigned(r.amount) }),
        el('span', { class: 'cell reason', 'data-label': t('player.reason'), text: has(`ledger.reason.${r.reason}`) ? t(`ledger.reason.${r.reason}`) : String(r.reason) }),
        el('span', { class: 'cell', 'data-label': t('player.room'), text: has(`rooms.${r.room}.title`) ? roomTitle(r.room) : String(r.room || '') }),
        el('span', { class: 'cell', 'data-label': t('player.where') }, where.length ? where : '—'),
        el('span', { class: 'cell when', 'data-label': t('player.when'), text: fmtTime(r.at) })));
    }
    sec.appendChild(list);
    const nav = pager(ledger.page, ledger.pages, (n) => { state.ledgerPage = n; load(); }, 'ledger-pager');
    if (nav) sec.appendChild(nav);
    return sec;
  }

  function paint() {
    if (disposed) return;
    page.replaceChildren();
    if (!state.data) {
      const text = state.loading ? t('common.loading') : state.status === 404 ? t('player.notFound', { name: username }) : t('player.failed', { error: state.error });
      page.appendChild(el('div', { class: 'page-message', testid: state.loading ? null : 'player-missing' }, el('p', { text }),
        state.loading ? null : el('a', { href: '/', 'data-link': '', class: 'btn', text: t('nav.backToLobby') })));
      return;
    }
    const acc = state.data.account || { username };
    const me = api.currentAccount();
    const credits = state.data.credits || {};
    page.appendChild(el('div', { class: 'page-head' },
      el('span', { class: 'big-avatar', 'aria-hidden': 'true', text: String(acc.username || '?').slice(0, 1).toUpperCase() }),
      el('div', { class: 'page-head-text' },
        el('h1', { testid: 'player-name-title' }, el('span', { text: acc.kind === 'bot' ? `${playerName(acc.username, 'bot')} (${acc.username})` : acc.username }),
          acc.kind === 'bot' ? el('span', { class: 'tag bot-tag', text: t('board.bot') }) : null,
          me && me.username === acc.username ? el('span', { class: 'tag me-tag', text: t('player.itsYou') }) : null),
        acc.created_at ? el('p', { class: 'muted', text: t('player.since', { when: fmtTime(acc.created_at) }) }) : null),
      el('div', { class: 'total-credits' },
        el('span', { class: 'muted small-text', text: t('player.totalCredits') }),
        el('span', { class: 'amount big-amount ' + sign(credits.total), testid: 'credits-total', text: fmtSigned(credits.total || 0) }))));
    if (state.error) page.appendChild(el('p', { class: 'form-error', text: t('player.failed', { error: state.error }) }));
    page.appendChild(roomCards());
    page.appendChild(el('div', { class: 'info-columns' }, gamesSection(), ledgerSection()));
  }

  paint();
  load();
  const offLang = onLangChange(() => { document.title = `${username} · 炒地皮`; paint(); });
  return () => { disposed = true; offLang(); };
}
