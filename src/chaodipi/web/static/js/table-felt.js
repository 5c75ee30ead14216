// The table page's felt: the four seats round the table (names, sides, bids, timers) and the trick in the middle.
// Part of the table page (table.js): `makeFelt(ctx)` is given the page's state and helpers and returns its drawing functions.
import { t } from './i18n.js';
import * as api from './api.js';
import { miniCards, parseCards, playRow } from './cards.js';
import { el } from './dom.js';
import { POS, trumpEl } from './table-common.js';

export function makeFelt(ctx) {
  const {
    R,
    S,
    dealerTeam,
    facts,
    getLangSig,
    hasLeft,
    inviteBox,
    mySeat,
    rel,
    seatName,
    seatsSig,
    showToast,
    team,
    unchanged,
    tableId,
  } = ctx;

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
    if (v && v.sides) tags.appendChild(el('span', { class: 'tag team-tag team-' + team(n), text: t(`side.${v.sides[n]}`) }));
    else if (team(n) !== null) tags.appendChild(el('span', { class: 'tag team-tag team-' + team(n), text: team(n) === team(me) ? t('info.us') : t('info.them') }));
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
        const row = playRow(cards, facts(), 'cards-row trick-cards' + (cards.length > 4 ? ' fan' : '') + (fresh ? ' fresh' : ''));
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

  return { latestBid, seatBox, renderFelt, trickEl, centerNote };
}
