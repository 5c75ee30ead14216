// What the table page's parts share: where each seat sits, texts with cards in them, the trump mark, the level in words.
import { t } from './i18n.js';
import { miniCards, rankText, suitSvg } from './cards.js';
import { el } from './dom.js';

/** seat + k sits at POS[k]: play goes counter-clockwise (the next player on your right). */
export const POS = ['bottom', 'right', 'top', 'left'];

/** A text with {cards} replaced by mini cards (and other params by text). */
export function richText(key, params = {}) {
  const out = el('span', { class: 'rich' });
  const text = t(key, Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'cards' && k !== 'cards2')));
  const parts = text.split(/(\{cards\}|\{cards2\})/);
  for (const part of parts) {
    if (part === '{cards}') out.appendChild(miniCards(params.cards || ''));
    else if (part === '{cards2}') out.appendChild(miniCards(params.cards2 || ''));
    else if (part) out.appendChild(document.createTextNode(part));
  }
  return out;
}

/** The trump as a mark: a suit symbol and its name, 无主, 扛旗, or "?" while unknown. */
export function trumpEl(trump, big = false) {
  const wrap = el('span', { class: 'trump-mark' + (big ? ' big' : '') });
  if (trump === null || trump === undefined || trump === '?') {
    wrap.classList.add('unknown');
    wrap.textContent = '?';
    wrap.title = t('trump.hidden');
  } else if (trump === 'nt') {
    wrap.textContent = t('trump.nt');
  } else if (trump === 'flag') {
    wrap.textContent = t('trump.flag');
  } else {
    wrap.classList.add(trump === 'h' || trump === 'd' ? 'red' : 'black');
    wrap.appendChild(suitSvg(trump, 'trump-suit'));
    wrap.appendChild(el('span', { class: 'trump-name', text: t(`suit.${trump}`) }));
  }
  return wrap;
}

/** The level played in words (2…10, J, Q, K, A, or 扛旗). */
export function levelText(level) {
  if (level === 'flag') return t('level.flag');
  return rankText(String(level));
}
