// The table page's felt: the four seats round the table (names, sides, bids, timers) and the trick in the middle.
// Part of the table page (table.js): `makeFelt(ctx)` is given the page's state and helpers and returns its drawing functions.
// A won trick stays in the middle, its winner marked and named, for the server's trick pause (the welcome's
// `pace.trick_pause_ms`; the next lead waits that long), until the next lead comes or the pause is over. On a phone
// the felt has a 上一轮 button that opens the last trick large (closed by a tap or Escape).
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
    plainName,
    seatsSig,
    showToast,
    team,
    unchanged,
    tableId,
    page,
    render,
  } = ctx;

  /** The server's pause after a trick in ms (the welcome's pace; 1500, the server's default, before it says). */
  function trickPauseMs() {
    const ms = S.pace && S.pace.trick_pause_ms;
    return typeof ms === 'number' && ms >= 0 ? ms : 1500;
  }

  // the finished trick held in the middle: which one (hand:number) and until when (performance.now())
  const held = { key: '', until: 0, timer: null };

  /** The finished trick to show in the middle now, or null: the last one of the hand, from its last card until
   * the next lead or the end of the pause (with no pause: until the next lead); at the end of a hand, always. */
  function finishedTrick(v, current) {
    if (!v || current.length || !v.tricks || !v.tricks.length || (v.phase !== 'play' && v.phase !== 'over')) return null;
    const last = v.tricks[v.tricks.length - 1];
    if (v.phase === 'over') return last;
    // a spectator kept whole tricks behind sees no trick in progress: the last one shown stays in the middle
    if (S.watching && S.watchDelay > 0) return last;
    const key = `${S.hand}:${v.tricks.length}`;
    const pause = trickPauseMs();
    if (held.key !== key) {
      held.key = key;
      held.until = performance.now() + pause;
      clearTimeout(held.timer);
      if (pause > 0) held.timer = setTimeout(() => { held.timer = null; render(); }, pause + 20);
    }
    return pause <= 0 || performance.now() < held.until ? last : null;
  }

  /** A seat as the trick views name it: 我 / 下家 / 对家 / 上家. */
  const seatTag = (n) => (mySeat() === null ? t('seat.number', { n }) : t(`trick.seat.${rel(n)}`));
  /** A seat's place in words: 下家 / 对家 / 上家 for a player; its number for a spectator. */
  const roleWord = (n) => (mySeat() === null ? t('seat.number', { n }) : t(`seat.role.${rel(n)}`));

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
      box.append(el('div', { class: 'seat-name', text: t('seat.free') }), el('div', { class: 'seat-role muted', text: roleWord(n) }));
      if (S.status === 'waiting' && !S.watching) {
        const sel = el('select', { class: 'small-select', 'aria-label': t('lobby.botStrength') });
        for (const b of ['rules', 'random', 'search', 'learned']) sel.appendChild(el('option', { value: b, text: t(`bot.level.${b}`) }));
        box.appendChild(el('div', { class: 'add-bot' }, sel, el('button', { type: 'button', class: 'btn small', testid: 'add-bot-' + n, text: t('lobby.addBot'), onclick: async () => {
          try { await api.takeSeat(tableId, { bot: sel.value, seat: n }); } catch (e) { showToast(e.message); }
        } })));
      }
      return box;
    }
    const head = el('div', { class: 'seat-head' },
      el('span', { class: 'avatar team-' + team(n), text: (plainName(n) || '?').slice(0, 1).toUpperCase() }),
      el('span', { class: 'seat-name', title: plainName(n), text: n === me ? t('table.youNamed', { name: s.name }) : plainName(n) }));
    box.appendChild(head);
    const tags = el('div', { class: 'seat-tags' });
    if (v && v.dealer === n) tags.appendChild(el('span', { class: 'tag dealer-tag', title: t('seat.dealer'), text: t('seat.dealerShort') }));
    if (v && v.sides) tags.appendChild(el('span', { class: 'tag team-tag team-' + team(n), text: t(`side.${v.sides[n]}`) }));
    else if (team(n) !== null && me !== null) tags.appendChild(el('span', { class: 'tag team-tag team-' + team(n), text: team(n) === team(me) ? t('info.us') : t('info.them') }));
    if (n !== me) tags.appendChild(el('span', { class: 'seat-role', text: roleWord(n) }));
    if (v && v.hand_sizes) tags.appendChild(el('span', { class: 'card-count', title: t('seat.cardsLeft'), 'data-count': String(v.hand_sizes[n]) }, el('span', { class: 'mini-back' }), String(v.hand_sizes[n])));
    box.appendChild(tags);
    const badges = el('div', { class: 'seat-badges' });
    // (a bot's name says what it is: 中级机器人)
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
    const v = S.view;
    const current = v && v.phase === 'play' && v.current_trick ? v.current_trick : [];
    const finished = finishedTrick(v, current);
    syncLastView();
    {
      const v0 = v;
      if (unchanged('felt', [getLangSig(), seatsSig(), S.status, mySeat(), S.copyOk, S.deadline && [S.deadline.seat, S.deadline.kind],
        S.game && S.game.seat_credits, !!finished, lastOpen,
        v0 && [v0.phase, v0.dealer, v0.to_act, v0.hand_sizes, v0.bids, v0.current_trick, v0.left, v0.level, v0.trump,
          v0.tricks && v0.tricks.length, v0.tricks && v0.tricks.length ? v0.tricks[v0.tricks.length - 1] : null]])) return;
    }
    R.felt.replaceChildren();
    const me = mySeat();
    for (let k = 0; k < 4; k++) R.felt.appendChild(seatBox((me + k) % 4));
    // the trick in the middle: the current one (data-testid current-trick, only its plays), or, from the last
    // card of a trick until the next lead or the end of the trick pause, the finished one, in an element of its own
    const center = el('div', { class: 'center' });
    const trick = trickEl(current, null, v ? v.tricks.length : 0);
    trick.dataset.testid = 'current-trick';
    center.appendChild(trick);
    if (finished) {
      const done = trickEl(finished.plays, finished, v.tricks.length - 1);
      done.dataset.testid = 'finished-trick';
      done.dataset.trick = String(v.tricks.length); // the trick's number in the hand, 1, 2, …
      done.classList.add('finished');
      done.appendChild(winnerBanner(finished));
      center.appendChild(done);
    }
    const note = centerNote();
    if (note) center.appendChild(note);
    // on a phone: the last trick, one tap away (CSS shows the button on narrow screens only)
    if (v && (v.phase === 'play' || v.phase === 'over')) {
      const any = !!(v.tricks && v.tricks.length);
      center.appendChild(el('button', {
        type: 'button', class: 'felt-last-btn', testid: 'last-trick-felt', 'aria-haspopup': 'dialog',
        'aria-expanded': lastOpen ? 'true' : 'false', disabled: !any, text: t('table.lastTrick'),
        onclick: () => openLastView(),
      }));
    }
    R.felt.appendChild(center);
  }

  /** "下家 赢得本轮 +10分": who took the finished trick, and its points. */
  function winnerBanner(finished) {
    const who = seatTag(finished.winner);
    const text = finished.points ? t('trick.wonByPoints', { who, n: finished.points }) : t('trick.wonBy', { who });
    return el('div', { class: 'trick-banner', testid: 'trick-winner', role: 'status', 'data-seat': String(finished.winner),
      title: seatName(finished.winner), text });
  }

  // -- the last trick, large (a phone's view of it) -----------------------------------------------------
  let lastOpen = false;
  let lastNode = null;
  let lastKey = '';

  function openLastView() {
    const v = S.view;
    if (!v || !v.tricks || !v.tricks.length) return;
    lastOpen = true;
    document.addEventListener('keydown', onLastKey, true);
    render();
    const close = lastNode && lastNode.querySelector('.trick-view-close');
    if (close) close.focus();
  }

  function closeLastView() {
    if (!lastOpen) return;
    lastOpen = false;
    document.removeEventListener('keydown', onLastKey, true);
    syncLastView();
    render();
    const btn = R.felt && R.felt.querySelector('[data-testid=last-trick-felt]');
    if (btn) btn.focus();
  }

  function onLastKey(e) {
    if (!page.isConnected) { document.removeEventListener('keydown', onLastKey, true); return; }
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); closeLastView(); }
  }

  /** Draw, refresh or take away the large view of the last trick, as `lastOpen` says. */
  function syncLastView() {
    const v = S.view;
    const last = lastOpen && v && v.tricks && v.tricks.length ? v.tricks[v.tricks.length - 1] : null;
    if (!last) {
      if (lastOpen) { lastOpen = false; document.removeEventListener('keydown', onLastKey, true); }
      if (lastNode) { lastNode.remove(); lastNode = null; lastKey = ''; }
      return;
    }
    const key = JSON.stringify([getLangSig(), S.hand, v.tricks.length, seatsSig(), mySeat()]);
    if (lastNode && lastKey === key && lastNode.isConnected) return;
    const node = lastView(last, v.tricks.length);
    if (lastNode && lastNode.isConnected) lastNode.replaceWith(node);
    else page.appendChild(node);
    lastNode = node;
    lastKey = key;
  }

  function lastView(last, trickNo) {
    const leader = last.plays.length ? last.plays[0][0] : null;
    const rows = el('div', { class: 'trick-view-plays' });
    for (const [p, cards] of last.plays) {
      const won = p === last.winner;
      const name = plainName(p); // the tag says which seat
      rows.appendChild(el('div', { class: 'trick-view-play' + (won ? ' winner' : ''), 'data-seat': String(p), 'data-rel': String(rel(p)) },
        el('div', { class: 'trick-view-who' },
          el('span', { class: 'trick-view-tag', testid: 'trick-view-tag', text: seatTag(p) }),
          el('span', { class: 'trick-view-name', title: name, text: name })),
        playRow(parseCards(cards), facts(), 'cards-row trick-view-cards'),
        el('div', { class: 'trick-view-marks' },
          p === leader ? el('span', { class: 'slot-tag lead-tag', text: t('trick.lead') }) : null,
          won ? el('span', { class: 'slot-tag win-tag', text: last.points ? t('trick.wonPoints', { n: last.points }) : t('trick.won') }) : null)));
    }
    const box = el('div', { class: 'trick-view-box' },
      el('div', { class: 'trick-view-head' },
        el('h2', { class: 'trick-view-title', text: t('trick.viewTitle', { k: trickNo }) }),
        el('button', { type: 'button', class: 'trick-view-close', 'aria-label': t('common.close'), text: '×', onclick: closeLastView })),
      rows,
      el('p', { class: 'trick-view-foot', text: t('trick.summary', { name: seatName(last.winner), n: last.points, k: trickNo }) }),
      el('p', { class: 'trick-view-hint', text: t('trick.viewHint') }));
    const overlay = el('div', { class: 'trick-view-overlay', testid: 'last-trick-view', role: 'dialog', 'aria-modal': 'true',
      'aria-label': t('table.lastTrickTitle') }, box);
    // a tap anywhere closes it (the cards are to be read, not pressed)
    overlay.addEventListener('click', (e) => { if (!e.target.closest || !e.target.closest('.trick-view-close')) closeLastView(); });
    return overlay;
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

  return { latestBid, seatBox, renderFelt, trickEl, centerNote, openLastView, closeLastView };
}
