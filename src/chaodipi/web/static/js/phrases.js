// What the engine says, in the reader's language: a phrase is {code, ...values} (docs/protocol.md,
// "Phrases"); its words are the catalogue's "phrase.<code>", with each value worded by its name:
// cards (cards, *_cards) by their names, seats (player, turn, holder, dealer, standing_player) by
// the seat's name, sides (side, winner) as 庄家方/抓分方, suits, ranks (level, drop) and phases.
import { t, has } from './i18n.js';
import { cardsName, parseCards, rankText } from './cards.js';

const SEAT_KEYS = new Set(['player', 'turn', 'holder', 'dealer', 'standing_player']);
const SIDE_KEYS = new Set(['side', 'winner']);
const RANK_KEYS = new Set(['level', 'drop']);

function suitWord(code) {
  if (code === 'trump') return t('suit.trump');
  if (code === 'nt') return t('trump.nt');
  return has(`suit.${code}`) ? t(`suit.${code}`) : String(code);
}

/**
 * The words of one value. `ctx.seatName(n)` names a seat (the page's own: 你, 下家·中级机器人…);
 * `ctx.sideName(side)` may name a side with its seats.
 */
export function phraseValue(key, value, ctx = {}) {
  if (value === null || value === undefined) return '—';
  if (key === 'cards' || key.endsWith('_cards')) return cardsName(String(value)) || t('common.none');
  if (SEAT_KEYS.has(key) && typeof value === 'number') return ctx.seatName ? ctx.seatName(value) : t('seat.number', { n: value });
  if (SIDE_KEYS.has(key)) return ctx.sideName ? ctx.sideName(value) : t(`side.${value}`);
  if (RANK_KEYS.has(key)) return rankText(String(value));
  if (key === 'suit') return suitWord(value);
  if (key === 'suits') return (Array.isArray(value) ? value : [value]).map(suitWord).join(t('common.listSep'));
  if (key === 'phase') return has(`phase.${value}`) ? t(`phase.${value}`) : String(value);
  if (key === 'state') return has(`phase.${value}`) ? t(`phase.${value}`) : String(value);
  if (Array.isArray(value)) return value.join(t('common.listSep'));
  return String(value);
}

/** The phrase in words; a phrase the catalogue does not know yet is shown by its English `fallback`. */
export function phraseText(phrase, ctx = {}, fallback = '') {
  if (!phrase || typeof phrase.code !== 'string') return fallback;
  if (phrase.code === 'text') return String(phrase.text || fallback);
  const key = `phrase.${phrase.code}`;
  if (!has(key)) return fallback || phrase.code;
  const params = {};
  for (const [k, v] of Object.entries(phrase)) {
    if (k === 'code') continue;
    params[k] = phraseValue(k, v, ctx);
  }
  // a count of the cards named, for words such as "你还有 {n} 张"
  if (phrase.cards !== undefined && params.count_cards === undefined) params.count_cards = parseCards(String(phrase.cards)).length;
  return t(key, params);
}

/** A settlement's notes in words: from `note_data` when the server sent it, else the English `notes`. */
export function notesText(holder, ctx = {}) {
  if (!holder) return [];
  const data = Array.isArray(holder.note_data) ? holder.note_data : null;
  const english = Array.isArray(holder.notes) ? holder.notes : [];
  if (!data) return english.map(String);
  return data.map((p, i) => phraseText(p, ctx, english[i] || ''));
}
