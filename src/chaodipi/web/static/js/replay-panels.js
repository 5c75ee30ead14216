// The replay viewer's side panels: the bids, the scoring side's points and point cards, the kitty, and the log
// (the events as the chosen seat saw them, in words; typed fields such as `trump`, `choose`, `won` are read, not prose).
// Part of the replay viewer (replay.js): `makePanels(ctx)` is given the viewer's state and helpers and returns its drawing functions.
import { t } from './i18n.js';
import { cardPoints, parseCards, rankOrder } from './cards.js';
import { el } from './dom.js';
import { backCard, cardsRow, hasShared, sharedOr, trumpEl } from './replay-common.js';
import { notesText } from './phrases.js';
import { offenceWords, penaltyWhat } from './table-panels.js';

export function makePanels(ctx) {
  const {
    fmtSigned,
    playerName,
    seatTitle,
    teamName,
    teamOf,
    ui,
    wrap,
  } = ctx;

  function renderInfo(snap) {
    const mark = snap.facts;
    const blocks = [];

    // bids
    const bidList = el('ul', { class: 'r-bids' });
    if (!snap.bids.length) bidList.appendChild(el('li', { class: 'r-muted', text: snap.h.result === 'redeal' ? t('replay.noBids') : t('replay.noBidsYet') }));
    snap.bids.forEach((b, i) => {
      const li = el('li', { class: 'r-bid' + (b.valid === false ? ' r-void' : '') },
        el('span', { class: 'r-bid-kind', text: b.fry ? t('replay.fryTag') : i === 0 ? t('replay.bidTag') : t('replay.overTag') }),
        el('span', { class: 'r-bid-who', text: playerName(b.player) }));
      if (b.cards !== undefined && b.cards !== null) {
        li.appendChild(cardsRow(b.cards, snap.facts, 'r-cards r-tiny-cards', { mark: false }));
        if (b.choose) li.appendChild(el('span', { class: 'r-bid-choose' }, '→ ', trumpEl(b.choose, 'r-trump r-trump-small')));
      } else {
        li.appendChild(el('span', { class: 'r-dark', title: t('replay.darkBidTitle'), text: t('replay.darkBid') }));
      }
      if (b.valid === false) li.appendChild(el('span', { class: 'r-void-tag', text: t('replay.void') }));
      bidList.appendChild(li);
    });
    blocks.push(el('section', { class: 'r-panel r-bids-panel' }, el('h3', { class: 'r-panel-title', text: t('replay.bids') }), bidList));

    // the scoring side's points and point cards
    if (snap.dealer !== null && snap.dealer !== undefined && snap.sides && snap.h.result !== 'redeal') {
      const scoringTeam = teamOf(snap.sides.indexOf('scoring'));
      const cards = [];
      for (const tk of snap.tricks || []) {
        if (snap.sides[tk.winner] !== 'scoring') continue;
        for (const [, c] of tk.plays) for (const code of parseCards(c)) if (cardPoints(code, snap.facts)) cards.push(code);
      }
      cards.sort((a, b) => rankOrder(a) - rankOrder(b) || a.localeCompare(b));
      blocks.push(el('section', { class: 'r-panel r-points-panel' },
        el('h3', { class: 'r-panel-title' },
          t('replay.scoringPoints', { team: teamName(scoringTeam) }),
          el('strong', { class: 'r-points-big', text: String(snap.points) })),
        cards.length ? cardsRow(cards, snap.facts, 'r-cards r-tiny-cards r-wrap', { mark: false }) : el('p', { class: 'r-muted', text: t('replay.noPointCards') })));
    }

    // the kitty
    const kittyBox = el('div', { class: 'r-kitty', testid: 'replay-kitty' });
    if (snap.kitty && snap.kitty.length) {
      kittyBox.appendChild(cardsRow(snap.kitty, mark, 'r-cards r-tiny-cards r-wrap'));
      const pts = snap.kitty.reduce((a, c) => a + cardPoints(c, snap.facts), 0);
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
          if (seen.cards === undefined) { delete copy.cards; delete copy.detail; delete copy.choose; }
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
    const mark = snap.facts;
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
    const detail = e.e === 'settled' ? notesText(e, { seatName: (n) => playerName(n) }).join(t('common.noteSep')) : e.detail || '';
    const params = { name: who, points: e.points || 0, detail, kind: e.e, no: trickNo };
    if (e.e === 'penalty') {
      Object.assign(params, { team: teamName(e.team), offence: offenceWords(e.offence), what: penaltyWhat(e) });
    } else if (e.e === 'frying_over') {
      params.trump = e.trump ? trumpWord(e.trump) : '';
    } else if ((e.e === 'bid' || e.e === 'fried') && e.choose) {
      params.trump = trumpWord(e.choose);
    }
    // the shared catalogue's words for events (ev.*), as the table page writes them
    let key = 'ev.' + e.e;
    if (e.e === 'bid' || e.e === 'fried') {
      if (!e.cards) key += '.dark';
      else if (e.choose) key += '.choose';
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
        params.points = typeof e.won === 'number' ? String(e.won) : '';
        own = e.won ? 'replay.ev.trickPoints' : 'replay.ev.trick';
      }
      text = t(own) === own ? t('replay.ev.other', params) : t(own, params);
    }
    if (who) li.appendChild(el('span', { class: `r-no r-no-${teamOf(e.p)}`, title: seatTitle(e.p), text: String(e.p) }));
    if (e.e === 'trick') li.appendChild(el('span', { class: 'r-ev-no', text: `#${trickNo}` }));
    li.appendChild(richLine(text, e.cards, mark));
    if (e.cards && !cardsInText) li.appendChild(cardsRow(e.cards, mark, 'r-cards r-tiny-cards r-ev-cards'));
    if (e.e === 'bid' && e.choose && !cardsInText) li.appendChild(el('span', { class: 'r-bid-choose' }, '→ ', trumpEl(e.choose, 'r-trump r-trump-small')));
    if ((e.e === 'bid' || e.e === 'fried') && e.valid === false) li.appendChild(el('span', { class: 'r-void-tag', text: sharedOr('bid.void', t('replay.void')) }));
    if (e.points && !/\{points\}/.test(hasShared(key) ? (i18nRaw(key) || '') : '')) {
      li.appendChild(el('span', { class: 'r-ev-points' + (e.points < 0 ? ' r-neg' : ''), text: fmtSigned(e.points) }));
    } else if (e.points) {
      li.classList.add(e.points < 0 ? 'r-ev-neg' : 'r-ev-pos');
    }
    const detailShown = ['left', 'throw_failed', 'kou_di', 'kitty_trump'].includes(e.e)
      || (e.e === 'settled' && !(hasShared(key) && (i18nRaw(key) || '').includes('{detail}')))
      || (e.e === 'frying_over' && Array.isArray(e.bids) && e.bids.length > 0);
    if (detailShown && detail) li.appendChild(el('span', { class: 'r-ev-detail', text: detail }));
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

  return { renderInfo, visibleEvents, renderLog, richLine, eventItem, i18nRaw, trumpWord };
}
