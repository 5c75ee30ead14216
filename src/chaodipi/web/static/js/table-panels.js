// The table page's side panels: trump, level and dealer; the scoring side's points and point cards; both
// teams' levels; the last trick, the bids, the kitty and the event log.
// Part of the table page (table.js): `makePanels(ctx)` is given the page's state and helpers and returns its drawing functions.
import { getLang, has, t } from './i18n.js';
import * as api from './api.js';
import { cardPoints, miniCards, parseCards, rankOrder } from './cards.js';
import { el } from './dom.js';
import { levelText, richText, trumpEl } from './table-common.js';
import { notesText } from './phrases.js';

// RULES §14.4's schedule (GET /api/events/penalties: each offence's words in both languages), asked once a page
// when a referee's penalty is first shown; until it comes the offence's key stands for its words.
let schedule = null;
let scheduleAsked = false;

/** A penalty's offence in the reader's language (the event's schedule), or its key; ``then`` redraws once known. */
export function offenceWords(key, then) {
  if (schedule === null && !scheduleAsked) {
    scheduleAsked = true;
    api.getJSON('/api/events/penalties').then((d) => { schedule = d.schedule || []; if (then) then(); }).catch(() => {});
  }
  const kind = (schedule || []).find((k) => k.key === key);
  return kind ? (getLang() === 'zh' ? kind.zh : kind.en) : String(key || '');
}

/** What a referee's penalty event gives, in words: p's change (as the scoring side sees it), levels, the game lost, a warning. */
export function penaltyWhat(e) {
  const parts = [];
  if (e.points) parts.push(t('pen.what.points', { points: (e.points > 0 ? '+' : '−') + Math.abs(e.points) }));
  if (e.levels) parts.push(t('pen.what.levels', { n: e.levels }));
  if (e.game_lost) parts.push(t('pen.what.lost'));
  if (e.warning) parts.push(t('pen.what.warning'));
  return parts.join(t('common.noteSep'));
}

export function makePanels(ctx) {
  const {
    R,
    S,
    dealerTeam,
    facts,
    gameClockText,
    getLangSig,
    mySeat,
    otherTeam,
    render,
    seatName,
    phraseCtx,
    seatsSig,
    team,
    teamNames,
    threshold,
    unchanged,
  } = ctx;

  function renderInfo() {
    {
      const v0 = S.view;
      if (unchanged('info', [getLangSig(), v0 && [v0.trump, v0.level, v0.dealer, v0.points, v0.threshold, v0.tricks && v0.tricks.length], S.game,
        S.rulesFull && [S.rulesFull.circles], seatsSig(), mySeat()])) return;
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
    const thr = threshold();
    const ptsBox = el('div', { class: 'info-card points-card' + (me !== null && dt !== null && dt !== team(me) ? ' mine' : '') },
      el('div', { class: 'info-label', text: dt === null || me === null ? t('info.scoringPoints') : (team(me) === dt ? t('info.theirPoints') : t('info.ourPoints')) }),
      el('div', { class: 'points-line' },
        el('span', { class: 'points-num' + (thr !== null && pts >= thr ? ' reached' : ''), testid: 'points', text: String(pts) }),
        el('span', { class: 'points-of', text: thr === null ? '' : '/' + thr })));
    const pc = pointCards();
    if (pc.length) ptsBox.appendChild(el('div', { class: 'point-cards', title: t('info.pointCards') }, miniCards(pc.join(' '))));
    R.info.appendChild(ptsBox);

    // levels, credits, game/hand numbers
    // a spectator sees both sides by their seats (seat 0's side first)
    const base = me !== null ? team(me) : team(0);
    if (g && g.levels && base !== null && base !== undefined) {
      const lv = el('div', { class: 'info-card levels-card' });
      const circles = S.rulesFull && S.rulesFull.circles > 1;
      const seatsOf = (tm) => t('info.seatsOf', { seats: [0, 1, 2, 3].filter((n) => team(n) === tm).join('·') });
      for (const tm of [base, otherTeam(base)]) {
        const L = g.levels[tm];
        if (!L) continue;
        const row = el('div', { class: 'info-row team-' + tm + (dt === tm ? ' dealer-side' : '') },
          el('span', { class: 'info-label', text: me === null ? seatsOf(tm) : tm === team(me) ? t('info.us') : t('info.them') }),
          el('span', { class: 'level-val' }, levelText(L.level), circles ? el('small', { text: ' ' + t('info.circle', { n: L.circle }) }) : null),
          g.credits ? el('span', { class: 'credits', title: t('info.credits'), text: t('info.creditsShort', { n: g.credits[tm] }) }) : null,
          dt === tm ? el('span', { class: 'tag dealer-tag', text: t('seat.dealerShort') }) : null);
        lv.appendChild(row);
      }
      lv.appendChild(el('div', { class: 'info-foot muted', text: t('info.gameHand', { game: g.number, hand: g.hands }) }));
      const clock = gameClockText();
      if (clock) {
        lv.appendChild(el('div', { class: 'info-foot game-clock' + (g.clock.time_up ? ' urgent' : ''), testid: 'game-clock', 'data-game-clock': '', text: clock }));
      }
      R.info.appendChild(lv);
    }
  }

  function pointCards() {
    const v = S.view;
    if (!v || !v.sides || !v.tricks) return [];
    const out = [];
    for (const tr of v.tricks) {
      if (v.sides[tr.winner] !== 'scoring') continue;
      for (const [, cards] of tr.plays) for (const c of parseCards(cards)) if (cardPoints(c, facts())) out.push(c);
    }
    return out.sort((a, b) => rankOrder(a) - rankOrder(b));
  }

  function renderSide() {
    {
      const v0 = S.view;
      const shown = S.events.filter((e) => e.e !== 'dealt').length;
      if (unchanged('side', [getLangSig(), seatsSig(), mySeat(), S.logOpen, S.showLast, shown, S.eventsHand, schedule !== null,
        v0 && [v0.phase, v0.bids, v0.kitty, v0.tricks && v0.tricks.length, v0.tricks && v0.tricks.length ? v0.tricks[v0.tricks.length - 1] : null]])) return;
    }
    const v = S.view;
    const side = R.sideBody || R.side; // the chat below it is the chat module's, left alone
    side.replaceChildren();
    // on a phone the side is a sheet over the table: its close button
    side.appendChild(el('button', { type: 'button', class: 'sheet-close btn small', text: t('common.close'), onclick: () => { S.logOpen = false; S.showLast = false; render(); } }));
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
    side.appendChild(lastBox);

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
      side.appendChild(bids);
    }
    // my kitty (the cards I buried)
    if (v && v.kitty && v.phase !== 'over') {
      side.appendChild(el('div', { class: 'side-card kitty-card' }, el('div', { class: 'side-title', text: t('table.myKitty') }), miniCards(v.kitty)));
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
    side.appendChild(log);
    if (S.logOpen) requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
  }

  function eventLine(e) {
    const name = e.p !== undefined && e.p !== null ? seatName(e.p) : '';
    const detail = e.e === 'settled' ? notesText(e, phraseCtx()).join(t('common.noteSep')) : e.detail || '';
    const params = { name, cards: e.cards || '', points: e.points || 0, detail };
    let key = 'ev.' + e.e;
    if (e.e === 'bid' || e.e === 'fried') {
      if (!e.cards) key += '.dark';
      else if (e.choose) { key += '.choose'; params.trump = trumpWord(e.choose); }
    }
    if (e.e === 'trick' && e.points) key = 'ev.trick.points';
    if (e.e === 'frying_over') params.trump = e.trump ? trumpWord(e.trump) : '';
    if (e.e === 'penalty') Object.assign(params, { team: teamNames(e.team), offence: offenceWords(e.offence, render), what: penaltyWhat(e) });
    const line = richText(has(key) ? key : 'ev.unknown', { ...params, kind: e.e });
    if (e.valid === false) line.appendChild(el('span', { class: 'tag void-tag', text: t('bid.void') }));
    if ((e.e === 'left' || e.e === 'kitty_trump') && e.detail) line.title = e.detail;
    return line;
  }

  /** A trump in words: 无主, or the suit's name. */
  function trumpWord(code) {
    return has(`trump.${code}`) ? t(`trump.${code}`) : t(`suit.${code}`);
  }

  return { renderInfo, pointCards, renderSide, eventLine, trumpWord };
}
