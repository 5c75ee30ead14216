// Cards: parsing the protocol's card text and drawing cards with CSS and inline SVG, for the table and the replay.
// Display only: what is legal always comes from the server, and which cards are trump and what each card
// is worth come from the view (`trumps`, `card_points`: cardFacts).
import { t } from './i18n.js';
import { el } from './dom.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

export const SUIT_PATHS = {
  s: 'M12 1.8C9.3 5.6 3.6 8.9 3.6 13.6c0 2.7 2.1 4.6 4.6 4.6 1.4 0 2.6-.6 3.2-1.5-.3 2.2-1.1 3.9-2.7 5.5h6.6c-1.6-1.6-2.4-3.3-2.7-5.5.6.9 1.8 1.5 3.2 1.5 2.5 0 4.6-1.9 4.6-4.6 0-4.7-5.7-8-8.4-11.8z',
  h: 'M12 21.3S3.2 15.6 3.2 9.2C3.2 6.1 5.5 3.8 8.4 3.8c1.6 0 2.9.8 3.6 2 .7-1.2 2-2 3.6-2 2.9 0 5.2 2.3 5.2 5.4 0 6.4-8.8 12.1-8.8 12.1z',
  c: 'M12 2.6a4.2 4.2 0 0 0-3.9 5.8A4.3 4.3 0 1 0 10.9 15c-.3 2.6-1.1 4.4-2.8 6.2h7.8c-1.7-1.8-2.5-3.6-2.8-6.2a4.3 4.3 0 1 0 2.8-6.6A4.2 4.2 0 0 0 12 2.6z',
  d: 'M12 1.6l7.6 10.4L12 22.4 4.4 12z',
};
const STAR_PATH = 'M12 2.2l2.9 6.3 6.9.8-5.1 4.7 1.4 6.8L12 17.4l-6.1 3.4 1.4-6.8L2.2 9.3l6.9-.8z';

const RANKS = '23456789TJQKA';
const SUITS = 'shcd';

/** "Ah Ah Kh" → ["Ah","Ah","Kh"]; "" → []. Accepts commas, any case and 10 for T; returns canonical codes. */
export function parseCards(text) {
  if (!text) return [];
  if (Array.isArray(text)) return text.slice();
  const out = [];
  for (let raw of String(text).split(/[\s,]+/)) {
    if (!raw) continue;
    const up = raw.toUpperCase();
    if (up === 'SJ' || up === 'BJ') { out.push(up); continue; }
    let rank = up.slice(0, -1);
    const suit = raw.slice(-1).toLowerCase();
    if (rank === '10') rank = 'T';
    if (rank.length === 1 && RANKS.includes(rank) && SUITS.includes(suit)) out.push(rank + suit);
    else out.push(raw); // unknown text: kept as it is
  }
  return out;
}

export function cardRank(code) {
  return code === 'SJ' || code === 'BJ' ? code : code.slice(0, -1);
}

/** A card's place in the notation's order of ranks (2 … A, then the jokers), for sorting cards for the eye. */
export function rankOrder(code) {
  const r = cardRank(code);
  return r === 'SJ' ? RANKS.length : r === 'BJ' ? RANKS.length + 1 : RANKS.indexOf(r);
}

export function cardSuit(code) {
  return code === 'SJ' || code === 'BJ' ? 'j' : code.slice(-1);
}

const FACTS = new WeakMap();

/**
 * What a view says about cards, as the engine worked it out (no rule is worked out here): `trumps`, the set
 * of cards that are trump as the seat knows it; `points`, each card's points; `level`, the level played.
 * Made once per view object.
 */
export function cardFacts(view) {
  if (!view) return { trumps: new Set(), points: {}, level: null };
  let f = FACTS.get(view);
  if (!f) {
    f = { trumps: new Set(parseCards(view.trumps || '')), points: view.card_points || {}, level: view.level };
    FACTS.set(view, f);
  }
  return f;
}

/** A card's points, as the view's facts say. */
export function cardPoints(code, facts) {
  return (facts && facts.points[code]) || 0;
}

/** Whether a card is trump as the view's facts say (for display, and to ask before a throw 甩牌). */
export function isTrump(code, facts) {
  return !!(facts && facts.trumps.has(code));
}

/** Whether a card is a level card (rank = the level played); never in a flag hand. */
export function isLevelCard(code, level) {
  if (level == null || level === 'flag') return false;
  return cardRank(code) === String(level);
}

export function rankText(rank) {
  return rank === 'T' ? '10' : rank;
}

export function suitSvg(suit, cls = 'suit-svg') {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', cls + ' suit-' + suit);
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS(SVG_NS, 'path');
  path.setAttribute('d', suit in SUIT_PATHS ? SUIT_PATHS[suit] : STAR_PATH);
  path.setAttribute('fill', 'currentColor');
  svg.appendChild(path);
  return svg;
}

/** The card's name in words ("红桃5", "5 of hearts", "大王"). */
export function cardName(code) {
  if (code === 'BJ') return t('card.bigJoker');
  if (code === 'SJ') return t('card.smallJoker');
  const rank = cardRank(code);
  const suit = cardSuit(code);
  if (!SUITS.includes(suit)) return code;
  return t('card.name', { rank: t(`rank.${rank}`), suit: t(`suit.${suit}`) });
}

export function cardsName(codes) {
  return parseCards(codes).map(cardName).join(t('card.sep'));
}

function span(cls, text) {
  const el = document.createElement('span');
  el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

/**
 * One card as an element: a <button> when opts.selectable, else a <div>.
 * opts: selectable, small, back, facts (cardFacts: its points), mark (with facts: mark trumps and level cards),
 * selected, dim.
 */
export function cardEl(code, opts = {}) {
  const el = document.createElement(opts.selectable ? 'button' : 'div');
  if (opts.selectable) el.type = 'button';
  el.dataset.card = code;
  const classes = ['card'];
  if (opts.small) classes.push('small');
  if (opts.tiny) classes.push('tiny');
  if (opts.back) {
    classes.push('back');
    el.className = classes.join(' ');
    el.setAttribute('aria-label', t('card.back'));
    el.appendChild(span('c-back'));
    return el;
  }
  const rank = cardRank(code);
  const suit = cardSuit(code);
  const joker = suit === 'j';
  const red = suit === 'h' || suit === 'd' || code === 'BJ';
  classes.push(red ? 'red' : 'black');
  if (joker) classes.push('joker', code === 'BJ' ? 'big-joker' : 'small-joker');
  if (code === '5h') classes.push('heart5');
  const pts = cardPoints(code, opts.facts);
  if (pts) classes.push('points');
  const marking = !!(opts.mark && opts.facts);
  if (marking) {
    if (isTrump(code, opts.facts)) classes.push('trump');
    if (isLevelCard(code, opts.facts.level)) classes.push('level');
  }
  if (opts.selected) classes.push('selected');
  if (opts.dim) classes.push('dim');
  el.className = classes.join(' ');
  el.setAttribute('aria-label', cardName(code));
  el.title = cardName(code);

  const corner = span('c-corner');
  if (joker) {
    corner.appendChild(span('c-rank c-joker-word', code === 'BJ' ? t('card.bigJokerShort') : t('card.smallJokerShort')));
  } else {
    corner.appendChild(span('c-rank', rankText(rank)));
    corner.appendChild(suitSvg(suit, 'c-suit'));
  }
  if (code === '5h') corner.appendChild(span('c-star', '★'));
  if (marking && isTrump(code, opts.facts) && !joker && code !== '5h') {
    corner.appendChild(span('c-badge', t('card.trumpBadge')));
  }
  el.appendChild(corner);

  const center = span('c-center');
  if (joker) {
    center.appendChild(suitSvg('j', 'c-big'));
    center.appendChild(span('c-joker-label', 'JOKER'));
  } else {
    center.appendChild(suitSvg(suit, 'c-big'));
    if (['J', 'Q', 'K'].includes(rank)) center.appendChild(span('c-face', rank));
  }
  el.appendChild(center);
  if (pts) el.appendChild(span('c-pts'));
  return el;
}

/** A row of cards (an overlapping fan when there are many). opts are passed to cardEl; opts.fan forces the fan. */
export function cardsEl(codes, opts = {}) {
  const list = parseCards(codes);
  const row = document.createElement('div');
  row.className = 'cards-row';
  if (opts.small) row.classList.add('small');
  if (opts.tiny) row.classList.add('tiny');
  if (opts.fan || list.length > (opts.small || opts.tiny ? 6 : 8)) row.classList.add('fan');
  row.setAttribute('aria-label', list.map(cardName).join(', '));
  for (const c of list) row.appendChild(cardEl(c, opts));
  return row;
}

/** Cards as small inline chips for text lines ("5♥ K♠"). */
export function miniCards(text) {
  const wrap = el('span', { class: 'mini-cards' });
  for (const c of parseCards(text)) {
    const suit = cardSuit(c);
    const red = suit === 'h' || suit === 'd' || c === 'BJ';
    const chip = el('span', { class: 'mini ' + (red ? 'red' : 'black') + (c === '5h' ? ' heart5' : ''), title: cardName(c) });
    if (suit === 'j') chip.textContent = c === 'BJ' ? t('card.bigJokerShort') : t('card.smallJokerShort');
    else {
      chip.appendChild(document.createTextNode(rankText(cardRank(c))));
      chip.appendChild(suitSvg(suit, 'mini-suit'));
    }
    wrap.appendChild(chip);
  }
  return wrap;
}

/**
 * A row of small cards, as a play of a trick (and a bid, a kitty, a log line) is drawn on the table and in the
 * replay: each card with its points and, by `facts` (a view's cardFacts), marked as trump or level card
 * (not when opts.mark is false); `cls` the row's classes, the other opts passed to cardEl.
 */
export function playRow(codes, facts, cls, opts = {}) {
  const row = el('div', { class: cls });
  for (const c of parseCards(codes)) row.appendChild(cardEl(c, { small: true, facts, mark: true, ...opts }));
  return row;
}

/** Multiset helpers over card codes. */
export function countCards(codes) {
  const m = new Map();
  for (const c of codes) m.set(c, (m.get(c) || 0) + 1);
  return m;
}

/** Whether multiset `big` contains multiset `small` (arrays of codes). */
export function containsAll(big, small) {
  const m = countCards(big);
  for (const c of small) {
    const n = m.get(c) || 0;
    if (!n) return false;
    m.set(c, n - 1);
  }
  return true;
}

export function sameCards(a, b) {
  return a.length === b.length && containsAll(a, b);
}
