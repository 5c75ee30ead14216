// The lobby's HTTP API (JSON in and out) and what the browser remembers: seats and the name.

async function request(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
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
    const err = new Error((data && data.error) || text || `HTTP ${resp.status}`);
    err.status = resp.status;
    throw err;
  }
  return data;
}

export const getJSON = (path) => request('GET', path);
export const postJSON = (path, body) => request('POST', path, body || {});

export const getPresets = () => getJSON('/api/presets');
export const listTables = (status) => getJSON('/api/tables' + (status ? '?status=' + encodeURIComponent(status) : ''));
export const getTable = (id) => getJSON(`/api/tables/${encodeURIComponent(id)}`);
export const createTable = (body) => postJSON('/api/tables', body);
export const takeSeat = (id, body) => postJSON(`/api/tables/${encodeURIComponent(id)}/seats`, body);
export const leaveTable = (id, token) => postJSON(`/api/tables/${encodeURIComponent(id)}/leave`, { token });

// -- what the browser remembers ------------------------------------------------------------

const seatKey = (id) => `chaodipi.seat.${id}`;

/** {token, seat, name} for a table, or null. */
export function getSeat(id) {
  try {
    const raw = localStorage.getItem(seatKey(id));
    if (!raw) return null;
    const v = JSON.parse(raw);
    if (v && typeof v.token === 'string' && Number.isInteger(v.seat)) return v;
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

/** Sits a guest at a table and remembers the token. */
export async function sitAt(id, name, seat) {
  const body = { name };
  if (seat !== undefined && seat !== null) body.seat = seat;
  const res = await takeSeat(id, body);
  setSeat(id, { token: res.token, seat: res.seat, name });
  setName(name);
  return res;
}
