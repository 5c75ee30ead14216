// What the player and leaderboard pages share: times, signed amounts, ratings and win rates in words, and a pager.
import { t, has, getLang } from './i18n.js';
import { el } from './dom.js';

/** The four rooms, in the server's order. */
export const ROOM_NAMES = ['anchao', 'kangqi', 'mingchao', 'house'];

/** A server time (ISO) as the reader's date and time; '' when there is none. */
export function fmtTime(iso, withDate = true) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const opts = withDate ? { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' } : { hour: '2-digit', minute: '2-digit' };
  try {
    return new Intl.DateTimeFormat(getLang() === 'zh' ? 'zh-CN' : 'en-GB', opts).format(d);
  } catch (_) {
    return d.toLocaleString();
  }
}

/** +12, −30, 0 (a true minus sign). */
export function fmtSigned(n) {
  const v = Number(n) || 0;
  return v > 0 ? `+${v}` : v < 0 ? `−${Math.abs(v)}` : '0';
}

/** A rating's ordinal (μ − 3σ) to one decimal; — when there is none. */
export function fmtRating(x) {
  return typeof x === 'number' && Number.isFinite(x) ? x.toFixed(1).replace(/^-/, '−') : '—';
}

/** A win rate in per cent: from wins and games when known, else the server's fraction. */
export function fmtWinRate(wins, games, rate) {
  if (Number(games) > 0 && typeof wins === 'number') return `${Math.round((100 * wins) / games)}%`;
  if (typeof rate === 'number' && Number.isFinite(rate)) return `${Math.round(rate <= 1 ? rate * 100 : rate)}%`;
  return '—';
}

/** A room's name in words (暗炒房, 自定义桌). */
export const roomTitle = (room) => t(`rooms.${room}.title`);

/** ‹ 上一页 · 第 2 / 5 页 · 下一页 ›; `go(n)` opens page n. */
export function pager(page, pages, go, testid) {
  const p = Math.max(1, Number(page) || 1);
  const n = Math.max(1, Number(pages) || 1);
  if (n <= 1) return null;
  return el('nav', { class: 'pager', testid, 'aria-label': t('page.nav') },
    el('button', { type: 'button', class: 'btn small', testid: testid ? testid + '-prev' : null, disabled: p <= 1, text: t('page.prev'), onclick: () => go(p - 1) }),
    el('span', { class: 'pager-at', text: t('page.of', { page: p, pages: n }) }),
    el('button', { type: 'button', class: 'btn small', testid: testid ? testid + '-next' : null, disabled: p >= n, text: t('page.next'), onclick: () => go(p + 1) }));
}

/** A player's name as shown: a bot's ("rules", "rules bot") in words (中级机器人), a person's as it is. */
export function playerName(name, kind) {
  const m = String(name || '').match(/^(random|rules|search|learned)(?: bot)?$/);
  if (m && (kind === 'bot' || kind === undefined) && has(`bot.name.${m[1]}`)) return t(`bot.name.${m[1]}`);
  return String(name || '');
}
