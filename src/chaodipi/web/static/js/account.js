// The account bar in the header (登录 / 注册, or the player's name, 退出, 在所有设备退出) and the dialog that logs in
// or registers. A guest who registers may keep the seats this browser holds (the resume tokens in localStorage)
// in the new account: the registration carries them as `claims`.
import { t, has, onLangChange } from './i18n.js';
import * as api from './api.js';
import { el } from './dom.js';

/** A username the server takes: 2–16 letters (any script), digits, _ and -. */
const USERNAME = /^[\p{L}\p{N}_-]{2,16}$/u;
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 128;

/** What is wrong with a username or password typed, in words; '' when it may be sent. */
export function authProblem(mode, username, password) {
  if (!username) return t('auth.error.usernameEmpty');
  if (mode === 'register') {
    if (!USERNAME.test(username.normalize('NFKC'))) return t('auth.error.usernameShape');
    if (password.length < PASSWORD_MIN) return t('auth.error.passwordShort', { n: PASSWORD_MIN });
    if (password.length > PASSWORD_MAX) return t('auth.error.passwordLong', { n: PASSWORD_MAX });
  } else if (!password) return t('auth.error.passwordEmpty');
  return '';
}

/** The server's refusal in the page's language (its English words only where the page has none). */
export function authErrorText(e, mode) {
  if (!e) return '';
  if (e.network) return t('auth.error.network');
  if (e.code && has(`auth.error.${e.code}`)) return t(`auth.error.${e.code}`);
  if (e.status === 401) return t('auth.error.wrong');
  if (e.status === 409) return t('auth.error.taken');
  if (e.status === 429) return e.retryAfter ? t('auth.error.tooManyWait', { n: e.retryAfter }) : t('auth.error.tooMany');
  if (e.status === 403) return t('auth.error.forbidden');
  if (e.status === 404) return t('auth.error.unavailable');
  const words = e.message && !/^HTTP \d+$/.test(e.message) ? e.message : '';
  return mode === 'register' ? t('auth.error.registerRefused', { error: words || e.status }) : t('auth.error.loginRefused', { error: words || e.status });
}

let openDialog = null;

/**
 * The login / registration dialog. `mode`: 'login' | 'register'; `opts.table`: the table page it was opened on
 * (its seat is offered to keep). Resolves with the account, or null when closed.
 */
export function openAuth(mode = 'login', opts = {}) {
  if (openDialog) openDialog.close(null);
  return new Promise((resolve) => {
    const st = { mode, busy: false, error: '', username: '', password: '', keep: true };
    const previous = document.activeElement;
    const overlay = el('div', { class: 'auth-overlay', testid: 'auth-dialog', role: 'dialog', 'aria-modal': 'true' });
    const box = el('form', { class: 'auth-box', novalidate: true });
    overlay.appendChild(box);
    let offLang = null;

    function close(result) {
      if (!overlay.isConnected) return;
      overlay.remove();
      document.removeEventListener('keydown', onKey, true);
      if (offLang) offLang();
      openDialog = null;
      if (previous && previous.focus && previous.isConnected) previous.focus();
      resolve(result);
    }
    function onKey(e) {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(null); }
    }

    function paint(focus) {
      const reg = st.mode === 'register';
      overlay.setAttribute('aria-label', reg ? t('auth.registerTitle') : t('auth.loginTitle'));
      box.replaceChildren();
      const tabs = el('div', { class: 'auth-tabs', role: 'tablist' },
        el('button', { type: 'button', role: 'tab', class: 'auth-tab' + (!reg ? ' on' : ''), 'aria-selected': !reg ? 'true' : 'false', testid: 'auth-tab-login', text: t('auth.login'), onclick: () => { st.mode = 'login'; st.error = ''; paint('user'); } }),
        el('button', { type: 'button', role: 'tab', class: 'auth-tab' + (reg ? ' on' : ''), 'aria-selected': reg ? 'true' : 'false', testid: 'auth-tab-register', text: t('auth.register'), onclick: () => { st.mode = 'register'; st.error = ''; paint('user'); } }),
        el('button', { type: 'button', class: 'close-x auth-close', 'aria-label': t('common.close'), text: '×', onclick: () => close(null) }));
      box.appendChild(tabs);
      box.appendChild(el('h2', { class: 'auth-title', text: reg ? t('auth.registerTitle') : t('auth.loginTitle') }));
      const user = el('input', { type: 'text', id: 'auth-username', testid: 'auth-username', autocomplete: 'username', maxlength: '16', autocapitalize: 'off', spellcheck: 'false', required: true });
      user.value = st.username;
      user.addEventListener('input', () => { st.username = user.value; });
      const pass = el('input', { type: 'password', id: 'auth-password', testid: 'auth-password', autocomplete: reg ? 'new-password' : 'current-password', maxlength: String(PASSWORD_MAX), required: true });
      pass.value = st.password;
      pass.addEventListener('input', () => { st.password = pass.value; });
      box.appendChild(el('label', { class: 'field', for: 'auth-username' }, el('span', { class: 'field-label', text: t('auth.username') }), user,
        reg ? el('span', { class: 'field-hint', text: t('auth.usernameHint') }) : null));
      box.appendChild(el('label', { class: 'field', for: 'auth-password' }, el('span', { class: 'field-label', text: t('auth.password') }), pass,
        reg ? el('span', { class: 'field-hint', text: t('auth.passwordHint', { n: PASSWORD_MIN }) }) : null));
      // the guest seats this browser holds: kept in the account (registration's claims; after a login, claimed one by one)
      const claims = api.guestClaims();
      if (claims.length) {
        const cb = el('input', { type: 'checkbox', testid: 'auth-keep-seats' });
        cb.checked = st.keep;
        cb.addEventListener('change', () => { st.keep = cb.checked; });
        const here = opts.table && claims.some((c) => c.table === opts.table);
        box.appendChild(el('label', { class: 'auth-keep' }, cb,
          el('span', { text: here ? t('auth.keepThisSeat') : t('auth.keepSeats', { n: claims.length }) })));
      }
      const err = el('p', { class: 'form-error', role: 'alert', testid: 'auth-error', text: st.error });
      err.hidden = !st.error;
      box.appendChild(err);
      box.appendChild(el('div', { class: 'auth-actions' },
        el('button', { type: 'button', class: 'btn', text: t('common.cancel'), onclick: () => close(null) }),
        el('button', { type: 'submit', class: 'btn primary', testid: 'auth-submit', disabled: st.busy,
          text: st.busy ? t('auth.busy') : reg ? t('auth.registerSubmit') : t('auth.loginSubmit') })));
      box.appendChild(el('p', { class: 'auth-switch muted small-text' },
        el('span', { text: reg ? t('auth.haveAccount') : t('auth.noAccount') }), ' ',
        el('button', { type: 'button', class: 'link-btn', text: reg ? t('auth.login') : t('auth.register'), onclick: () => { st.mode = reg ? 'login' : 'register'; st.error = ''; paint('user'); } })));
      if (focus === 'user') user.focus();
      else if (focus === 'pass') pass.focus();
    }

    async function submit() {
      if (st.busy) return;
      const username = st.username.trim();
      const problem = authProblem(st.mode, username, st.password);
      if (problem) { st.error = problem; paint(username ? 'pass' : 'user'); return; }
      st.busy = true;
      st.error = '';
      paint();
      try {
        const claims = st.keep ? api.guestClaims() : [];
        let data;
        if (st.mode === 'register') data = await api.register(username, st.password, claims);
        else {
          data = await api.login(username, st.password);
          // a guest's seats become the account's after a login too (one by one; a spent token is left alone)
          for (const c of claims) { try { await api.claimSeat(c.table, c.token); } catch (_) { /* ignore */ } }
        }
        close(data.account || api.currentAccount());
      } catch (e) {
        st.busy = false;
        st.error = authErrorText(e, st.mode);
        st.password = e.status === 409 ? st.password : '';
        paint(e.status === 409 ? 'user' : 'pass');
      }
    }

    box.addEventListener('submit', (e) => { e.preventDefault(); submit(); });
    overlay.addEventListener('click', (e) => { if (e.target === overlay) close(null); });
    document.addEventListener('keydown', onKey, true);
    offLang = onLangChange(() => paint());
    document.body.appendChild(overlay);
    openDialog = { close };
    paint('user');
  });
}

/** The header's account bar: 登录 / 注册 for a guest; the name (a link to the player's page) and a menu otherwise. */
export function buildAccountBar() {
  const bar = el('div', { class: 'account-bar', testid: 'account-bar' });
  let menuOpen = false;
  let busy = false;

  function onDocClick(e) {
    if (menuOpen && !bar.contains(e.target)) { menuOpen = false; paint(); }
  }
  document.addEventListener('click', onDocClick);

  async function doLogout(everywhere) {
    if (busy) return;
    busy = true;
    menuOpen = false;
    try { await api.logout(everywhere); } catch (e) { console.error(e); }
    busy = false;
    paint();
  }

  function paint() {
    bar.replaceChildren();
    const acc = api.currentAccount();
    bar.dataset.state = acc ? 'in' : 'out';
    if (!acc) {
      bar.append(
        el('button', { type: 'button', class: 'acct-btn', testid: 'login-button', text: t('auth.login'), onclick: () => openAuth('login', { table: tableHere() }) }),
        el('button', { type: 'button', class: 'acct-btn primary', testid: 'register-button', text: t('auth.register'), onclick: () => openAuth('register', { table: tableHere() }) }));
      return;
    }
    const name = el('a', { class: 'acct-name', testid: 'account-name', href: api.playerPath(acc.username), 'data-link': '', title: t('account.myPage') },
      el('span', { class: 'acct-avatar', 'aria-hidden': 'true', text: acc.username.slice(0, 1).toUpperCase() }),
      el('span', { class: 'acct-name-text', text: acc.username }));
    const toggle = el('button', { type: 'button', class: 'acct-btn acct-menu-btn', testid: 'account-menu', 'aria-haspopup': 'menu', 'aria-expanded': menuOpen ? 'true' : 'false', 'aria-label': t('account.menu'), text: '▾',
      onclick: (e) => { e.stopPropagation(); menuOpen = !menuOpen; paint(); } });
    bar.append(name, toggle);
    if (menuOpen) {
      bar.appendChild(el('div', { class: 'acct-menu', role: 'menu' },
        el('a', { role: 'menuitem', class: 'acct-item', href: api.playerPath(acc.username), 'data-link': '', text: t('account.myPage'), onclick: () => { menuOpen = false; paint(); } }),
        el('button', { type: 'button', role: 'menuitem', class: 'acct-item', testid: 'logout-button', text: t('account.logout'), onclick: () => doLogout(false) }),
        el('button', { type: 'button', role: 'menuitem', class: 'acct-item', testid: 'logout-all-button', text: t('account.logoutAll'), onclick: () => doLogout(true) })));
    }
  }

  paint();
  onLangChange(paint);
  api.onAccountChange(paint);
  window.addEventListener('chaodipi:routed', () => { if (menuOpen) { menuOpen = false; paint(); } });
  return bar;
}

/** The table whose page this is (its seat is the one offered to keep), or null. */
function tableHere() {
  const m = location.pathname.match(/^\/t\/(\d+)/);
  return m ? Number(m[1]) : null;
}
