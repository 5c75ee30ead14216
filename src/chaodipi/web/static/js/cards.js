// Cards: parsing the protocol's card text and drawing cards with CSS and inline SVG.
// Display only: what is legal always comes from the server.
import { t } from './i18n.js';

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

export function cardSuit(code) {
  return code === 'SJ' || code === 'BJ' ? 'j' : code.slice(-1);
}

/** Card points: 5 → 5, T and K → 10, else 0. */
export function cardPoints(code) {
  const r = cardRank(code);
  if (r === '5') return 5;
  if (r === 'T' || r === 'K') return 10;
  return 0;
}

/** Whether a card is trump (RULES §3.1), for display. */
export function isTrump(code, level, trump) {
  if (code === '5h' || code === 'BJ' || code === 'SJ') return true;
  if (level === 'flag' || trump === 'flag') return false;
  const rank = cardRank(code);
  const isLevel = level != null && rank === String(level);
  if (trump == null || trump === '?' || trump === 'nt') return isLevel;
  return isLevel || cardSuit(code) === trump;
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
 * opts: selectable, small, back, level, trump (mark trumps and level cards), selected, dim.
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
  const pts = cardPoints(code);
  if (pts) classes.push('points');
  const marking = opts.level !== undefined || opts.trump !== undefined;
  if (marking) {
    if (isTrump(code, opts.level, opts.trump)) classes.push('trump');
    if (isLevelCard(code, opts.level)) classes.push('level');
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
  if (marking && isTrump(code, opts.level, opts.trump) && !joker && code !== '5h') {
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
