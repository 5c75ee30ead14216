// The table page's hand: the seat's cards in rows, selectable, the legal plays lit (from the view's `legal`),
// the cards from the kitty marked; whether a selection is a throw 甩牌 (the view's `trumps` say which cards are trump).
// Part of the table page (table.js): `makeHand(ctx)` is given the page's state and helpers and returns its drawing functions.
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
    legal,
    myPlayTurn,
    mySeat,
    quickPlay,
    selectedCodes,
    toggleCard,
    unchanged,
  } = ctx;

  /** Whether a selection would be led as a throw 甩牌: several cards of one effective suit, not one listed lead. */
  function isThrowSelection(cards) {
    const l = legal();
    const v = S.view;
    if (!l.leads || !l.throws || cards.length < 2 || !v) return false;
    if (l.leads.some((x) => sameCards(parseCards(x), cards))) return false;
    const suits = new Set(cards.map((c) => (isTrump(c, facts()) ? 'T' : cardSuit(c))));
    return suits.size === 1;
  }

  function playableSet() {
    const cards = handCards();
    const res = cards.map(() => true);
    if (!myPlayTurn()) return res;
    const l = legal();
    const sel = selectedCodes();
    let options = null;
    if (l.follows) {
      if (l.more) return res;
      options = l.follows.map(parseCards);
    } else if (l.leads) {
      if (l.throws) return res;
      options = l.leads.map(parseCards);
    }
    if (!options) return res;
    cards.forEach((c, i) => {
      if (S.sel.has(i)) return;
      const cand = sel.concat([c]);
      res[i] = options.some((o) => containsAll(o, cand));
    });
    return res;
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

  function renderHand() {
    if (!R.hand || S.mode !== 'play') return;
    {
      const v0 = S.view;
      if (unchanged('hand', [getLangSig(), v0 && [v0.hand, v0.legal, v0.level, v0.trump, v0.trumps, v0.phase], [...S.sel].sort((a, b) => a - b),
        S.cursor, R.hand.clientWidth, kittyMarks()])) return;
    }
    if (!R.hand || S.mode !== 'play') return;
    const v = S.view;
    R.hand.replaceChildren();
    const cards = handCards();
    R.hand.dataset.count = String(cards.length);
    {
      const l0 = legal();
      R.hand.classList.toggle('selectable', !!(l0.bury || (v && v.phase === 'play')));
      R.hand.classList.toggle('my-turn', !!(l0.bury || myPlayTurn()));
    }
    if (!cards.length) {
      if (v && v.phase === 'deal') R.hand.appendChild(el('div', { class: 'hand-empty muted', text: t('table.waitDeal') }));
      return;
    }
    const playable = playableSet();
    const kitty = kittyMarks();
    const kittyLeft = kitty.slice();
    const l = legal();
    const canSelect = !!(l.bury || (v && v.phase === 'play'));
    const cs = getComputedStyle(R.hand);
    const cw = parseFloat(cs.getPropertyValue('--card-w')) || 64;
    const W = Math.max(200, R.hand.clientWidth - 16);
    const minStrip = Math.max(17, cw * 0.36);
    let rows = 1;
    const n = cards.length;
    const stripFor = (k) => (k > 1 ? (W - cw) / (k - 1) : cw);
    while (rows < 3 && stripFor(Math.ceil(n / rows)) < minStrip) rows += 1;
    const perRow = Math.ceil(n / rows);
    const strip = Math.min(cw * 0.86, stripFor(perRow));
    const rowEls = [];
    for (let r = 0; r < rows; r++) {
      // every row but the last is half covered by the next one: its buttons are only as tall as what shows
      const row = el('div', { class: 'hand-row' + (r < rows - 1 ? ' covered' : '') });
      rowEls.push(row);
      R.hand.appendChild(row);
    }
    R.hand.dataset.rows = String(rows);
    cards.forEach((c, i) => {
      // the button is only as wide as the visible strip of its card (the face overflows under the next one),
      // so a tap or a click at the button's middle always lands on this card
      const face = cardEl(c, { facts: facts(), mark: true });
      face.removeAttribute('data-card');
      face.removeAttribute('title');
      face.setAttribute('aria-hidden', 'true');
      const rowIndex = Math.floor(i / perRow);
      const lastInRow = i === Math.min(n, (rowIndex + 1) * perRow) - 1;
      const b = el('button', { type: 'button', class: 'hand-card' + (lastInRow ? ' last' : ''), 'data-card': c, 'aria-label': cardName(c), title: cardName(c) }, face);
      b.style.setProperty('--w', (lastInRow ? cw : strip).toFixed(1) + 'px');
      const selected = S.sel.has(i);
      b.dataset.index = String(i);
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
      if (!canSelect) b.setAttribute('aria-disabled', 'true');
      b.tabIndex = -1;
      b.addEventListener('click', (ev) => { ev.preventDefault(); toggleCard(i); });
      b.addEventListener('dblclick', (ev) => { ev.preventDefault(); quickPlay(i); });
      rowEls[rowIndex].appendChild(b);
    });
  }

  return { isThrowSelection, playableSet, kittyMarks, renderHand };
}
