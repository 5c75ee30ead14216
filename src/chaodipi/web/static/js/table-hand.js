// The table page's hand: the seat's cards in rows, selectable, the legal plays lit (from the view's `legal`),
// the cards from the kitty marked, the cards chosen to bury shown in a tray; whether a selection is a throw 甩牌
// (the view's `throw_groups` say which cards may be led together).
// Part of the table page (table.js): `makeHand(ctx)` is given the page's state and helpers and returns its drawing functions.
//
// The rows: every card's button is only as large as what shows of it (its tap strip): at least --strip-min wide
// where the cards overlap and --strip-h tall where the next row covers it. Between two rows a band of --lift is
// kept free: a selected card rises into it, so that it covers no other card's strip.
import { t } from './i18n.js';
import { cardEl, cardName, cardSuit, containsAll, isTrump, parseCards, sameCards } from './cards.js';
import { el } from './dom.js';

export function makeHand(ctx) {
  const {
    R,
    S,
    facts,
    getLangSig,
    handCards,
    isAuto,
    legal,
    myPlayTurn,
    mySeat,
    quickPlay,
    selectedCodes,
    toggleCard,
    unchanged,
  } = ctx;

  let lastPointer = 'mouse'; // the kind of the last pointer that pressed a card: mouse, pen or touch

  /** Whether this seat is in 托管 (the bot plays for it): then the hand takes no taps. */
  function autoOn() {
    const me = mySeat();
    return me !== null && isAuto(me);
  }

  /** The leads the view lists, and the groups of cards that may be led together (each one suit's cards). */
  function leadOptions(l) {
    const leads = (l.leads || []).map(parseCards);
    return leads.concat((l.throw_groups || []).map(parseCards));
  }

  /** Whether a selection would be led as a throw 甩牌: several cards of one group, not one listed lead. */
  function isThrowSelection(cards) {
    const l = legal();
    const v = S.view;
    if (!l.leads || !l.throws || cards.length < 2 || !v) return false;
    if (l.leads.some((x) => sameCards(parseCards(x), cards))) return false;
    if (l.throw_groups) return l.throw_groups.some((g) => containsAll(parseCards(g), cards));
    const suits = new Set(cards.map((c) => (isTrump(c, facts()) ? 'T' : cardSuit(c))));
    return suits.size === 1;
  }

  /** For each card of the hand, whether it may join the selection: it and the selection are inside one listed
   * play (a follow; a lead or a throw group when leading). All lit when nothing is listed or the list is cut. */
  function playableSet() {
    const cards = handCards();
    const res = cards.map(() => true);
    if (autoOn()) return cards.map(() => false);
    if (!myPlayTurn()) return res;
    const l = legal();
    const sel = selectedCodes();
    let options = null;
    if (l.follows) {
      if (l.more) return res;
      options = l.follows.map(parseCards);
    } else if (l.leads) {
      if (l.throws && !l.throw_groups) return res; // a server that does not say which cards go together
      options = leadOptions(l);
    }
    if (!options) return res;
    cards.forEach((c, i) => {
      if (S.sel.has(i)) return;
      const cand = sel.concat([c]);
      res[i] = options.some((o) => containsAll(o, cand));
    });
    return res;
  }

  /** Whether a tap on card `i` may change the selection now: never in 托管; when leading, a dimmed card (one that
   * goes with the selection in no legal lead) cannot be added. Deselecting is always allowed. */
  function canToggle(i) {
    if (autoOn()) return false;
    if (S.sel.has(i)) return true;
    const l = legal();
    if (l.leads && !l.follows) return playableSet()[i] !== false;
    return true;
  }

  function kittyMarks() {
    // which cards of the hand came from the kitty: the latest kitty_taken event for this seat
    const v = S.view;
    if (!v || !legal().bury) return [];
    for (let i = S.events.length - 1; i >= 0; i--) {
      const e = S.events[i];
      if (e.e === 'kitty_taken' && e.p === mySeat() && e.cards) return parseCards(e.cards);
    }
    return [];
  }

  /** The rows: how many, the cards' width and the strip each card shows, for `n` cards in `W` pixels. */
  function layout(n, W, cw0, minStrip) {
    const smallest = Math.round(cw0 * 0.86);
    for (let rows = 1; rows <= 4; rows++) {
      const k = Math.ceil(n / rows);
      if (k <= 1) return { rows, cw: Math.min(cw0, W) };
      const room = W - (k - 1) * minStrip; // what is left for the row's last card, shown whole
      if (room >= cw0) return { rows, cw: cw0 };
      if (room >= smallest) return { rows, cw: Math.floor(room) };
    }
    return { rows: 4, cw: smallest };
  }

  /** The tray of the cards chosen to bury: one place for each, filled in the hand's order. */
  function buryTray(total) {
    const chosen = selectedCodes();
    const tray = el('div', { class: 'bury-tray', testid: 'bury-tray', 'data-count': String(chosen.length), 'aria-live': 'polite',
      'aria-label': t('hand.trayLabel') + ': ' + chosen.map(cardName).join(', ') },
      el('span', { class: 'tray-label', text: t('hand.trayLabel') }));
    const slots = el('div', { class: 'tray-slots' });
    for (let k = 0; k < total; k++) {
      const c = chosen[k];
      if (c) {
        const face = cardEl(c, { facts: facts(), mark: true, tiny: true });
        face.removeAttribute('data-card');
        face.dataset.trayCard = c;
        slots.appendChild(face);
      } else {
        slots.appendChild(el('span', { class: 'tray-slot' }));
      }
    }
    tray.appendChild(slots);
    tray.appendChild(el('span', { class: 'tray-count' + (chosen.length === total ? ' full' : ''), text: `${chosen.length}/${total}` }));
    return tray;
  }

  function renderHand() {
    if (!R.hand || S.mode !== 'play') return;
    {
      const v0 = S.view;
      if (unchanged('hand', [getLangSig(), v0 && [v0.hand, v0.legal, v0.level, v0.trump, v0.trumps, v0.phase], [...S.sel].sort((a, b) => a - b),
        S.cursor, R.hand.clientWidth, kittyMarks(), autoOn()])) return;
    }
    if (!R.hand || S.mode !== 'play') return;
    const v = S.view;
    R.hand.replaceChildren();
    const cards = handCards();
    R.hand.dataset.count = String(cards.length);
    const auto = autoOn();
    const l = legal();
    const canSelect = !auto && !!(l.bury || (v && v.phase === 'play'));
    R.hand.classList.toggle('selectable', canSelect);
    R.hand.classList.toggle('my-turn', !auto && !!(l.bury || myPlayTurn()));
    R.hand.classList.toggle('auto', auto);
    R.hand.classList.toggle('burying', !!l.bury);
    R.hand.dataset.auto = auto ? 'true' : 'false';
    if (!cards.length) {
      if (v && v.phase === 'deal') R.hand.appendChild(el('div', { class: 'hand-empty muted', text: t('table.waitDeal') }));
      return;
    }
    if (l.bury) R.hand.appendChild(buryTray(l.bury));
    const playable = playableSet();
    const kitty = kittyMarks();
    const kittyLeft = kitty.slice();
    const cs = getComputedStyle(R.hand);
    const px = (name, dflt) => parseFloat(cs.getPropertyValue(name)) || dflt;
    const cw0 = px('--card-w', 64);
    const minStrip = px('--strip-min', 30);
    const stripH = px('--strip-h', 46);
    const lift = px('--lift', 12);
    const W = Math.max(160, R.hand.clientWidth - px('padding-left', 0) - px('padding-right', 0));
    const n = cards.length;
    const { rows, cw } = layout(n, W, cw0, minStrip);
    const ch = cw * 1.4;
    R.hand.style.setProperty('--hc-w', cw + 'px');
    // rows as even as may be: the first rows take one card more
    const base = Math.floor(n / rows);
    const extra = n % rows;
    const sizes = Array.from({ length: rows }, (_, r) => base + (r < extra ? 1 : 0));
    const rowEls = [];
    const rowOf = [];
    sizes.forEach((size, r) => {
      const last = r === rows - 1;
      // every row but the last is covered by the next one, all but its strip and the band a selected card rises into
      const row = el('div', { class: 'hand-row' + (last ? '' : ' covered') });
      row.style.height = (last ? ch : stripH + lift).toFixed(1) + 'px';
      row.dataset.size = String(size);
      rowEls.push(row);
      R.hand.appendChild(row);
      for (let k = 0; k < size; k++) rowOf.push([r, k === size - 1, size]);
    });
    R.hand.dataset.rows = String(rows);
    cards.forEach((c, i) => {
      // the button is only as large as the visible strip of its card (the face overflows under the next one),
      // so a tap or a click at the button's middle always lands on this card
      const face = cardEl(c, { facts: facts(), mark: true });
      face.removeAttribute('data-card');
      face.removeAttribute('title');
      face.setAttribute('aria-hidden', 'true');
      const [rowIndex, lastInRow, size] = rowOf[i];
      const strip = size > 1 ? Math.min(cw * 0.86, (W - cw) / (size - 1)) : cw;
      const b = el('button', { type: 'button', class: 'hand-card' + (lastInRow ? ' last' : ''), 'data-card': c, 'aria-label': cardName(c), title: cardName(c) }, face);
      b.style.setProperty('--w', (lastInRow ? cw : strip).toFixed(1) + 'px');
      b.style.setProperty('--h', (rowIndex === rows - 1 ? ch : stripH).toFixed(1) + 'px');
      const selected = S.sel.has(i);
      b.dataset.index = String(i);
      b.dataset.row = String(rowIndex);
      b.dataset.selected = selected ? 'true' : 'false';
      b.dataset.playable = playable[i] ? 'true' : 'false';
      b.dataset.trump = isTrump(c, facts()) ? 'true' : 'false';
      b.setAttribute('aria-pressed', selected ? 'true' : 'false');
      if (selected) { b.classList.add('selected'); face.classList.add('selected'); }
      if (!playable[i]) { b.classList.add('dim'); face.classList.add('dim'); }
      const kIdx = kittyLeft.indexOf(c);
      if (kIdx >= 0) {
        kittyLeft.splice(kIdx, 1);
        face.classList.add('from-kitty');
        b.dataset.kitty = 'true';
      }
      if (i === S.cursor) face.classList.add('cursor');
      if (!canSelect || !canToggle(i)) b.setAttribute('aria-disabled', 'true');
      b.tabIndex = -1;
      b.addEventListener('pointerdown', (ev) => { lastPointer = ev.pointerType; });
      b.addEventListener('click', (ev) => { ev.preventDefault(); if (canToggle(i)) toggleCard(i); });
      // a double click plays a single at once; two quick taps of a finger only select and deselect (a slip would play)
      b.addEventListener('dblclick', (ev) => { ev.preventDefault(); if (lastPointer === 'mouse' && !autoOn()) quickPlay(i); });
      rowEls[rowIndex].appendChild(b);
    });
  }

  return { isThrowSelection, playableSet, canToggle, kittyMarks, renderHand };
}
