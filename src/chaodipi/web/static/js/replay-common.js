// What the replay viewer's parts share: the words (the shared catalogue's or the viewer's own), levels, rooms,
// the trump mark, and cards drawn small (rows of them through cards.js's playRow, shared with the table page).
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { cardEl, playRow, suitSvg } from './cards.js';
import { el } from './dom.js';

// This page's words are in the main catalogues, under `replay.`.
/** Whether the catalogue has `key` (without a console warning when it has not). */
export const hasShared = (key) => i18n.has(key);

/** A shared catalogue's word when it has one (e.g. `preset.anchao`), else `fallback`. */
export function sharedOr(key, fallback, params) {
  return hasShared(key) ? t(key, params) : fallback;
}

export const isTrickStep = (step) => step === 'trick' || step === 'over';

export function levelText(level) {
  if (level === null || level === undefined) return '?';
  if (level === 'flag') return t('replay.flag');
  return level === 'T' ? '10' : String(level);
}

export function progressText(p) {
  if (!p) return '';
  const lv = levelText(p.level);
  return p.circle > 1 ? t('replay.levelCircle', { level: lv, circle: p.circle }) : lv;
}

export function roomName(room) {
  if (!room) return '';
  const plus = room.endsWith('+');
  const base = plus ? room.slice(0, -1) : room;
  const own = t('replay.preset.' + base);
  const name = sharedOr('preset.' + base, own === 'replay.preset.' + base ? base : own);
  return plus ? t('replay.roomHouse', { name }) : name;
}

/** The trump as a small element: a suit symbol, 无主, 扛旗, or "?" while unknown. */
export function trumpEl(trump, cls = 'r-trump') {
  if (trump === 's' || trump === 'h' || trump === 'c' || trump === 'd') {
    const wrap = el('span', { class: `${cls} r-suit-${trump}`, title: t('replay.suit.' + trump) });
    wrap.appendChild(suitSvg(trump, 'r-suit-icon'));
    return wrap;
  }
  if (trump === 'nt') return el('span', { class: `${cls} r-nt`, text: t('replay.noTrump') });
  if (trump === 'flag') return el('span', { class: `${cls} r-flagtrump`, text: t('replay.flag') });
  return el('span', { class: `${cls} r-unknown`, text: '?', title: t('replay.trumpUnknown') });
}

/** One card, small, with its points and marked as trump/level card by `facts` (a view's cardFacts; not when extra.mark is false). */
export function smallCard(code, facts, extra = {}) {
  return cardEl(code, { small: true, facts, mark: true, ...extra });
}

export function backCard(extraClass) {
  const c = cardEl('', { small: true, back: true });
  delete c.dataset.card;
  c.dataset.back = 'true';
  if (extraClass) c.classList.add(extraClass);
  return c;
}

export function cardsRow(codes, facts, cls = 'r-cards', opts = {}) {
  return playRow(codes, facts, cls, opts);
}
