// The table's chat: the lines (who, their seat or 观众, when, what: always as text, never as HTML), an input of at
// most 200 characters, quick phrases (worded in the reader's language), a mute per player (the reader's choice,
// kept in localStorage: a muted player's lines are hidden), and the server's refusals (too fast, too long, a
// spectator who is not logged in). On a phone the chat is a sheet opened from the top bar's 聊天 button, which
// counts the lines that came while it was closed.
// Part of the table page (table.js): `makeChat(ctx)` is given the page's state and helpers and returns the panel
// and the functions the socket calls.
import { t, has } from './i18n.js';
import * as api from './api.js';
import { el } from './dom.js';
import { openAuth } from './account.js';
import { fmtTime } from './format.js';

/** The quick phrases' codes (the server's CHAT_PHRASES). */
export const PHRASES = ['hello', 'good_luck', 'nice', 'thanks', 'sorry', 'hurry', 'oops', 'gg'];
const MAX_CHAT = 200;
const KEEP = 200;
const PHONE = '(max-width: 720px)';

/** Whose a line is, for muting: an account's name, else the name said. */
export const speakerKey = (line) => (line.account ? 'a:' + String(line.account).toLowerCase() : 'n:' + String(line.name || ''));

export function makeChat(ctx) {
  const { S, R, send, mySeat, rel, render, tableId } = ctx;
  let muted = api.mutedSpeakers();
  let showMuted = false;
  let errorTimer = null;

  const isPhone = () => typeof window.matchMedia === 'function' && window.matchMedia(PHONE).matches;
  /** Whether the reader sees the chat now (on a phone: while its sheet is open). */
  const chatVisible = () => !isPhone() || S.chatOpen;

  function isMine(line) {
    const me = mySeat();
    if (me !== null && line.seat === me) return true;
    const acc = api.currentAccount();
    return !!(acc && line.account && String(line.account).toLowerCase() === acc.username.toLowerCase());
  }

  /** The seat a line came from in words: 我 / 下家 / 对家 / 上家 at the table, "2 号" for a spectator's page, or 观众. */
  function seatTag(line) {
    if (line.seat === null || line.seat === undefined) return t('chat.watcher');
    if (mySeat() !== null) return t(`trick.seat.${rel(line.seat)}`);
    return t('seat.number', { n: line.seat });
  }

  function lineText(line) {
    if (line.phrase) return has(`chat.phrase.${line.phrase}`) ? t(`chat.phrase.${line.phrase}`) : String(line.phrase);
    return String(line.text || '');
  }

  // -- the panel -----------------------------------------------------------------------------------------
  function panel() {
    const box = el('section', { class: 'side-card chat-card', testid: 'chat', 'aria-label': t('chat.title') });
    R.chatBox = box;
    R.chatHead = el('div', { class: 'side-title chat-title' });
    R.chatList = el('ol', { class: 'chat-list', testid: 'chat-lines', 'aria-live': 'polite' });
    R.chatMuted = el('div', { class: 'chat-muted' });
    R.chatErr = el('p', { class: 'chat-error', testid: 'chat-error', role: 'alert' });
    R.chatErr.hidden = true;
    box.append(R.chatHead, R.chatMuted, R.chatList, phraseRow(), inputRow(), R.chatErr);
    paintHead();
    paintLines();
    paintError();
    return box;
  }

  function paintHead() {
    if (!R.chatHead) return;
    const n = muted.size;
    R.chatHead.replaceChildren(...[
      el('span', { text: t('chat.title') }),
      n ? el('button', { type: 'button', class: 'link-btn chat-muted-toggle', testid: 'chat-muted-toggle', 'aria-expanded': showMuted ? 'true' : 'false',
        text: t('chat.mutedN', { n }), onclick: () => { showMuted = !showMuted; paintMuted(); paintHead(); } }) : null,
      el('button', { type: 'button', class: 'close-x chat-close', 'aria-label': t('common.close'), text: '×', onclick: () => setOpen(false) })].filter(Boolean));
    paintMuted();
  }

  function paintMuted() {
    if (!R.chatMuted) return;
    R.chatMuted.replaceChildren();
    R.chatMuted.hidden = !showMuted || !muted.size;
    if (R.chatMuted.hidden) return;
    for (const key of muted) {
      const name = key.slice(2);
      R.chatMuted.appendChild(el('span', { class: 'muted-chip' }, el('span', { text: name }),
        el('button', { type: 'button', class: 'btn small', text: t('chat.unmute'), onclick: () => toggleMute(key, false) })));
    }
  }

  function lineEl(line) {
    const key = speakerKey(line);
    const mine = isMine(line);
    const li = el('li', { class: 'chat-line' + (mine ? ' mine' : '') + (line.phrase ? ' phrase' : ''), testid: 'chat-line', 'data-id': String(line.id ?? ''), 'data-speaker': key });
    const who = el('span', { class: 'chat-who' },
      line.account
        ? el('a', { class: 'chat-name', href: api.playerPath(line.account), 'data-link': '', text: line.name || line.account })
        : el('span', { class: 'chat-name', text: line.name || t('chat.someone') }),
      el('span', { class: 'chat-seat tag', text: seatTag(line) }),
      el('time', { class: 'chat-time', datetime: line.at || '', text: fmtTime(line.at, false) }));
    li.appendChild(who);
    li.appendChild(el('span', { class: 'chat-text', testid: 'chat-text', text: lineText(line) }));
    if (!mine) {
      li.appendChild(el('button', { type: 'button', class: 'chat-mute', testid: 'chat-mute', title: t('chat.mute', { name: line.name || '' }),
        'aria-label': t('chat.mute', { name: line.name || '' }), text: t('chat.muteShort'), onclick: () => toggleMute(key, true) }));
    }
    return li;
  }

  function paintLines() {
    if (!R.chatList) return;
    R.chatList.replaceChildren();
    const shown = S.chat.filter((l) => !muted.has(speakerKey(l)));
    if (!shown.length) R.chatList.appendChild(el('li', { class: 'chat-empty muted', text: t('chat.empty') }));
    for (const line of shown) R.chatList.appendChild(lineEl(line));
    scrollDown();
  }

  function scrollDown() {
    if (!R.chatList) return;
    const list = R.chatList;
    requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
  }

  function phraseRow() {
    const row = el('div', { class: 'chat-phrases', role: 'group', 'aria-label': t('chat.phrases') });
    const blocked = S.watching && !api.currentAccount(); // a spectator chats once logged in
    for (const code of PHRASES) {
      row.appendChild(el('button', { type: 'button', class: 'phrase-btn', testid: 'phrase-' + code, 'data-phrase': code, disabled: blocked, text: t(`chat.phrase.${code}`),
        onclick: () => say({ phrase: code }) }));
    }
    R.chatPhrases = row;
    return row;
  }

  function inputRow() {
    const blocked = S.watching && !api.currentAccount();
    const input = el('input', { type: 'text', class: 'chat-input', testid: 'chat-input', maxlength: String(MAX_CHAT), enterkeyhint: 'send', autocomplete: 'off',
      'aria-label': t('chat.placeholder'), placeholder: blocked ? t('chat.loginToChat') : t('chat.placeholder'), disabled: blocked });
    input.value = S.chatDraft || '';
    const count = el('span', { class: 'chat-count', 'aria-live': 'polite' });
    const paintCount = () => {
      const n = input.value.length;
      count.textContent = n > MAX_CHAT - 40 ? `${n}/${MAX_CHAT}` : '';
    };
    input.addEventListener('input', () => { S.chatDraft = input.value; paintCount(); });
    const form = el('form', { class: 'chat-form' }, input, count,
      blocked
        ? el('button', { type: 'button', class: 'btn small primary', testid: 'chat-login', text: t('auth.login'), onclick: () => openAuth('login', { table: tableId }) })
        : el('button', { type: 'submit', class: 'btn small primary chat-send', testid: 'chat-send', text: t('chat.send') }));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      if (text.length > MAX_CHAT) { showError(t('chat.error.chat_length', { n: MAX_CHAT })); return; }
      if (say({ text })) {
        input.value = '';
        S.chatDraft = '';
        paintCount();
        input.focus();
      }
    });
    R.chatInput = input;
    paintCount();
    return form;
  }

  function say(body) {
    if (S.watching && !api.currentAccount()) { showError(t('chat.error.chat_login')); return false; }
    return send({ type: 'chat', ...body, id: 'chat' });
  }

  function showError(text) {
    S.chatError = text;
    paintError();
    clearTimeout(errorTimer);
    errorTimer = setTimeout(() => { S.chatError = ''; paintError(); }, 6000);
  }

  function paintError() {
    if (!R.chatErr) return;
    R.chatErr.textContent = S.chatError || '';
    R.chatErr.hidden = !S.chatError;
  }

  function toggleMute(key, on) {
    api.setMuted(key, on);
    muted = api.mutedSpeakers();
    if (!muted.size) showMuted = false;
    paintHead();
    paintLines();
  }

  /** Open or close the chat (a phone's sheet); opening reads what came. */
  function setOpen(open) {
    S.chatOpen = open;
    if (open) {
      S.chatUnread = 0;
      S.showLast = false;
      S.logOpen = false;
    }
    page().classList.toggle('show-chat', open);
    render();
    if (open) {
      scrollDown();
      if (R.chatInput && !R.chatInput.disabled && !isPhone()) R.chatInput.focus();
    }
  }
  const page = () => ctx.page;

  // -- what the socket brings ----------------------------------------------------------------------------
  /** The welcome's latest lines (a reconnection's too: they replace what was shown). */
  function chatWelcome(lines) {
    S.chat = lines.slice(-KEEP);
    paintLines();
  }

  function chatLine(line) {
    if (S.chat.some((l) => l.id !== undefined && l.id === line.id)) return;
    S.chat.push(line);
    if (S.chat.length > KEEP) S.chat.splice(0, S.chat.length - KEEP);
    if (muted.has(speakerKey(line))) return;
    if (R.chatList) {
      const empty = R.chatList.querySelector('.chat-empty');
      if (empty) empty.remove();
      R.chatList.appendChild(lineEl(line));
      while (R.chatList.children.length > KEEP) R.chatList.firstChild.remove();
      scrollDown();
    }
    if (!chatVisible() && !isMine(line)) {
      S.chatUnread += 1;
      render();
    }
  }

  function chatRefused(msg) {
    const code = msg.code;
    showError(has(`chat.error.${code}`) ? t(`chat.error.${code}`, { n: MAX_CHAT }) : t('chat.error.other', { error: msg.message || code }));
  }

  /** The top bar's chat button (shown on phones; a spectator's page shows it everywhere the chat is a sheet). */
  function chatButton() {
    const n = S.chatUnread;
    return el('button', { type: 'button', class: 'tool-btn chat-btn', testid: 'chat-button', 'aria-pressed': S.chatOpen ? 'true' : 'false',
      'aria-label': n ? t('chat.buttonUnread', { n }) : t('chat.title'), onclick: () => setOpen(!S.chatOpen) },
    el('span', { text: t('chat.short') }),
    n ? el('span', { class: 'unread', testid: 'chat-unread', text: n > 99 ? '99+' : String(n) }) : null);
  }

  return { chatPanel: panel, chatWelcome, chatLine, chatRefused, chatButton, setChatOpen: setOpen };
}
