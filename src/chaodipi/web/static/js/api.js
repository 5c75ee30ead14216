// The lobby's HTTP API (JSON in and out), the session (who is logged in, the CSRF token), and what the browser
// remembers: seats, the name, muted players.
//
// The page never reads a cookie: it asks `GET /api/me` at start and keeps the `csrf` it answers, and sends it
// as `X-CSRF-Token` with every POST (the server refuses a POST without it, 403 {"code": "csrf"}). Cookies go
// with each request (same origin: fetch's default).

const session = { account: null, csrf: '', loaded: false };
const accountListeners = new Set();

/** Who is logged in: {id, username, kind} or null. */
export const currentAccount = () => session.account;
/** Whether `GET /api/me` has answered (or failed) once. */
export const sessionLoaded = () => session.loaded;

/** Calls `fn(account)` after every login, registration and logout; returns a function that stops it. */
export function onAccountChange(fn) {
  accountListeners.add(fn);
  return () => accountListeners.delete(fn);
}

function setSession(data) {
  if (!data || typeof data !== 'object') return;
  const before = session.account ? session.account.username : null;
  if ('account' in data) session.account = data.account || null;
  if (typeof data.csrf === 'string') session.csrf = data.csrf;
  const after = session.account ? session.account.username : null;
  if (before !== after) {
    for (const fn of [...accountListeners]) {
      try { fn(session.account); } catch (e) { console.error(e); }
    }
  }
}

/** A request; `body`: an object sent as JSON, or `{raw: text}` sent as it is (JSON text). */
async function request(method, path, body, retried = false) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = body && typeof body.raw === 'string' ? body.raw : JSON.stringify(body);
  }
  if (method !== 'GET' && session.csrf) init.headers['X-CSRF-Token'] = session.csrf;
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    const err = new Error(e && e.message ? e.message : 'network error');
    err.status = 0;
    err.network = true;
    throw err;
  }
  let data = null;
  const text = await resp.text();
  if (text) {
    try { data = JSON.parse(text); } catch (_) { data = null; }
  }
  if (!resp.ok) {
    // a stale CSRF token (the session changed in another tab): ask for the current one, then try once more
    if (resp.status === 403 && data && data.code === 'csrf' && !retried && method !== 'GET') {
      await loadSession();
      return request(method, path, body, true);
    }
    const err = new Error((data && data.error) || text || `HTTP ${resp.status}`);
    err.status = resp.status;
    err.code = data && data.code ? data.code : '';
    err.data = data;
    const retry = Number(resp.headers.get('Retry-After'));
    if (Number.isFinite(retry) && retry > 0) err.retryAfter = retry;
    throw err;
  }
  return data;
}

export const getJSON = (path) => request('GET', path);
export const postJSON = (path, body) => request('POST', path, body || {});
/** POST a JSON text as it is (a record whose 64-bit seed a parse would round). */
export const postText = (path, text) => request('POST', path, { raw: text });

/** Asks the server who this browser is (`GET /api/me`) and keeps its answer and CSRF token. */
export async function loadSession() {
  try {
    setSession(await request('GET', '/api/me'));
  } catch (e) {
    // an older server without accounts: the page works as a guest's
    if (!session.loaded) console.warn('GET /api/me:', e.message);
  }
  session.loaded = true;
  return session.account;
}

// -- accounts -------------------------------------------------------------------------------

/** The guest seats this browser holds, as the server takes them to claim: [{table, token}]. */
export function guestClaims() {
  return mySeatTables().map((id) => ({ table: id, token: (getSeat(id) || {}).token })).filter((c) => typeof c.token === 'string' && c.token);
}

export async function register(username, password, claims) {
  const body = { username, password };
  if (claims && claims.length) body.claims = claims;
  const data = await postJSON('/api/register', body);
  setSession(data);
  return data;
}

export async function login(username, password) {
  const data = await postJSON('/api/login', { username, password });
  setSession(data);
  return data;
}

export async function logout(everywhere = false) {
  try {
    setSession(await postJSON(everywhere ? '/api/logout/all' : '/api/logout'));
  } catch (e) {
    if (e.status === 401) setSession({ account: null });
    else throw e;
  }
}

export const claimSeat = (table, token) => postJSON('/api/claim', { table, token });

// -- tables, rooms, players ----------------------------------------------------------------

export const getPresets = () => getJSON('/api/presets');
export const listTables = (status) => getJSON('/api/tables' + (status ? '?status=' + encodeURIComponent(status) : ''));
export const getTable = (id) => getJSON(`/api/tables/${encodeURIComponent(id)}`);
export const createTable = (body) => postJSON('/api/tables', body);
export const takeSeat = (id, body) => postJSON(`/api/tables/${encodeURIComponent(id)}/seats`, body);
export const leaveTable = (id, token) => postJSON(`/api/tables/${encodeURIComponent(id)}/leave`, token ? { token } : {});
export const getRooms = () => getJSON('/api/rooms');
export const quickJoin = (room, body) => postJSON(`/api/rooms/${encodeURIComponent(room)}/quick`, body);
export function getPlayer(username, gamesPage = 1, ledgerPage = 1) {
  return getJSON(`/api/players/${encodeURIComponent(username)}?games_page=${gamesPage}&ledger_page=${ledgerPage}`);
}
export function getLeaderboard(room, sort = 'rating', page = 1) {
  return getJSON(`/api/rooms/${encodeURIComponent(room)}/leaderboard?sort=${encodeURIComponent(sort)}&page=${page}`);
}

/** A player's page. */
export const playerPath = (username) => `/p/${encodeURIComponent(username)}`;
/** A room's leaderboard page. */
export const leaderboardPath = (room) => `/rooms/${encodeURIComponent(room)}/leaderboard`;

// -- what the browser remembers ------------------------------------------------------------

const seatKey = (id) => `chaodipi.seat.${id}`;

/** {token, seat, name} for a table, or null. A seat an account holds may have no token (`token: null`). */
export function getSeat(id) {
  try {
    const raw = localStorage.getItem(seatKey(id));
    if (!raw) return null;
    const v = JSON.parse(raw);
    if (v && (typeof v.token === 'string' || v.token === null) && Number.isInteger(v.seat)) return v;
  } catch (_) { /* ignore */ }
  return null;
}

export function setSeat(id, seat) {
  try { localStorage.setItem(seatKey(id), JSON.stringify({ token: seat.token, seat: seat.seat, name: seat.name })); } catch (_) { /* ignore */ }
}

export function forgetSeat(id) {
  try { localStorage.removeItem(seatKey(id)); } catch (_) { /* ignore */ }
}

/** The ids of the tables this browser holds a seat at. */
export function mySeatTables() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      const m = k && k.match(/^chaodipi\.seat\.(\d+)$/);
      if (m) out.push(Number(m[1]));
    }
  } catch (_) { /* ignore */ }
  return out;
}

export function getName() {
  try { return localStorage.getItem('chaodipi.name') || ''; } catch (_) { return ''; }
}

export function setName(name) {
  try { localStorage.setItem('chaodipi.name', name); } catch (_) { /* ignore */ }
}

/** The remembered name, or a new one ("玩家 123") that is remembered. */
export function defaultName(prefix) {
  let n = getName();
  if (!n) {
    n = `${prefix}${Math.floor(100 + Math.random() * 900)}`;
    setName(n);
  }
  return n;
}

/** Sits a guest (or the logged-in account: then the seat's name is the username) at a table and remembers the token. */
export async function sitAt(id, name, seat) {
  const body = { name: session.account ? session.account.username : name };
  if (seat !== undefined && seat !== null) body.seat = seat;
  const res = await takeSeat(id, body);
  setSeat(id, { token: res.token, seat: res.seat, name: body.name });
  if (!session.account) setName(name);
  return res;
}

/** A seat at a room's open table (`POST /api/rooms/{room}/quick`), remembered; `bots`: fill the other seats with bots. */
export async function quickSeat(room, name, bots) {
  const body = {};
  if (!session.account) body.name = name;
  if (bots) body.bots = true;
  const res = await quickJoin(room, body);
  const shown = session.account ? session.account.username : name;
  setSeat(res.table, { token: res.token || null, seat: res.seat, name: shown });
  if (!session.account && name) setName(name);
  return res;
}

// -- muted chat speakers (the reader's choice, kept in this browser) --------------------------

const MUTE_KEY = 'chaodipi.muted';

/** The muted speakers' keys ("a:<username>" for an account, "n:<name>" for a guest). */
export function mutedSpeakers() {
  try {
    const v = JSON.parse(localStorage.getItem(MUTE_KEY) || '[]');
    return new Set(Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);
  } catch (_) { return new Set(); }
}

export function setMuted(key, on) {
  const set = mutedSpeakers();
  if (on) set.add(key);
  else set.delete(key);
  try { localStorage.setItem(MUTE_KEY, JSON.stringify([...set].slice(-200))); } catch (_) { /* ignore */ }
}
