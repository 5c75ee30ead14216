// Events 赛事: the list of events (/events) and the form that opens one, and what the event pages share
// (their HTTP calls, a pair in words, a status tag, a poll that stops when the page is left).
// Every name a player or an organiser typed is shown as text (textContent), never as markup.
import { t, has, onLangChange } from './i18n.js';
import * as api from './api.js';
import { el } from './dom.js';
import { fmtTime } from './format.js';

// ---------------------------------------------------------------- shared by the event pages

/** The levels a side's progress can be at (§11), low to high; "flag" after A where the rules have it. */
export const LEVELS = ['2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A'];
export const FORMATS = ['knockout', 'swiss', 'city'];
const PRESET_ORDER = ['standard', 'anchao', 'kangqi', 'mingchao', 'contest2021', 'institute2023'];

export const eventPath = (id) => `/events/${encodeURIComponent(id)}`;
export const organisePath = (id) => `${eventPath(id)}/organise`;
export const refereePath = (params = {}) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return '/referee' + (s ? '?' + s : '');
};

const base = (id) => `/api/events/${encodeURIComponent(id)}`;
export const ev = {
  list: () => api.getJSON('/api/events'),
  create: (body) => api.postJSON('/api/events', body),
  get: (id) => api.getJSON(base(id)),
  log: (id) => api.getJSON(base(id) + '/log'),
  addPair: (id, body) => api.postJSON(base(id) + '/pairs', body),
  importPairs: (id, csv) => api.postJSON(base(id) + '/pairs/import', { csv }),
  withdraw: (id, pair) => api.postJSON(`${base(id)}/pairs/${encodeURIComponent(pair)}/withdraw`, {}),
  forbid: (id, a, b) => api.postJSON(base(id) + '/forbid', { a, b }),
  addReferee: (id, username) => api.postJSON(base(id) + '/referees', { username }),
  pairRound: (id) => api.postJSON(base(id) + '/rounds', {}),
  roundOp: (id, n, op) => api.postJSON(`${base(id)}/rounds/${encodeURIComponent(n)}/${op}`, {}),
  result: (id, body) => api.postJSON(base(id) + '/results', body),
  correct: (id, body) => api.postJSON(base(id) + '/results/correct', body),
  penalty: (id, body) => api.postJSON(base(id) + '/penalties', body),
  schedule: () => api.getJSON('/api/events/penalties'),
  standingsCsv: (id) => base(id) + '/standings.csv',
  pairingsCsv: (id, n) => `${base(id)}/pairings.csv?round=${encodeURIComponent(n)}`,
};

/** Opens a page of the app (the router's own navigation). */
export function go(path) {
  window.dispatchEvent(new CustomEvent('chaodipi:navigate', { detail: { path } }));
}

/** An error from the server in words (its own words when it gave some). */
export function errorText(e) {
  if (!e) return '';
  if (e.network) return t('ev.error.network');
  if (e.status === 403) return e.message && !/^HTTP/.test(e.message) ? e.message : t('ev.error.forbidden');
  return e.message || String(e);
}

export const formatText = (f) => (has(`ev.format.${f}`) ? t(`ev.format.${f}`) : String(f || ''));
export const presetText = (p) => (has(`preset.${p}`) ? t(`preset.${p}`) : String(p || ''));
export const levelText = (l) => (l === 'flag' ? t('ev.level.flag') : l === 'T' ? '10' : String(l ?? ''));

/** A status as a coloured tag (registering, running, finished; a round's drawn, published, playing, finished). */
export function statusTag(status, testid) {
  return el('span', { class: `tag ev-status ev-status-${status}`, testid, 'data-status': status, text: has(`ev.status.${status}`) ? t(`ev.status.${status}`) : String(status || '') });
}

/** The pairs of an event by id. */
export function pairMap(event) {
  const m = new Map();
  for (const p of event.pairs || []) m.set(p.id, p);
  return m;
}

/** A pair's short label: "a12 Tigers" (its code in the current round, its name). */
export function pairLabel(pair) {
  if (!pair) return t('ev.bye');
  return [pair.code, pair.name].filter(Boolean).join(' ');
}

/** Whether the logged-in account is one of this pair's players. */
export function isMine(pair) {
  const me = api.currentAccount();
  return !!(me && pair && (pair.players || []).some((p) => p.account && p.name === me.username));
}

/** A player's name: an account links to its page, a bot is marked as one. */
export function playerEl(p) {
  if (!p) return null;
  if (p.bot) return el('span', { class: 'ev-player bot', title: t('board.bot') }, has(`bot.name.${p.bot}`) ? t(`bot.name.${p.bot}`) : t('ev.botPlayer'));
  if (p.account) return el('a', { class: 'ev-player acct-link', href: api.playerPath(p.name), 'data-link': '', text: p.name });
  return el('span', { class: 'ev-player', text: p.name });
}

/** A pair as a block: its code, its name, its two players, its club. */
export function pairBlock(pair, opts = {}) {
  if (!pair) return el('div', { class: 'ev-pair bye' }, el('span', { class: 'ev-pair-name muted', text: t('ev.bye') }));
  const players = (pair.players || []).map(playerEl);
  const withSep = [];
  players.forEach((p, i) => { if (i) withSep.push(el('span', { class: 'ev-amp', text: '&' })); withSep.push(p); });
  return el('div', { class: 'ev-pair' + (isMine(pair) ? ' mine' : ''), 'data-pair': String(pair.id) },
    el('div', { class: 'ev-pair-head' },
      pair.code ? el('span', { class: 'ev-code', text: pair.code }) : null,
      el('span', { class: 'ev-pair-name', text: pair.name || '' }),
      isMine(pair) ? el('span', { class: 'tag me-tag', text: t('ev.you') }) : null,
      pair.withdrawn ? el('span', { class: 'tag off-tag', text: t('ev.withdrawn') }) : null,
      opts.out && pair.out ? el('span', { class: 'tag off-tag', text: t('ev.outIn', { n: pair.out }) }) : null),
    opts.players === false ? null : el('div', { class: 'ev-players' }, withSep,
      pair.club ? el('span', { class: 'ev-club muted', text: '· ' + pair.club }) : null));
}

/** Calls `fn` every `ms` while the page is shown (not while the tab is hidden); returns a function that stops it. */
export function every(ms, fn) {
  let stopped = false;
  let timer = null;
  const tick = async () => {
    if (stopped) return;
    if (!document.hidden) {
      try { await fn(); } catch (e) { console.warn(e); }
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  timer = setTimeout(tick, ms);
  return () => { stopped = true; clearTimeout(timer); };
}

/** A labelled field: el('label.field', label, control, hint?). */
export function field(label, control, hint, cls = '') {
  return el('label', { class: 'field ' + cls },
    el('span', { class: 'field-label', text: label }), control,
    hint ? el('span', { class: 'field-hint', text: hint }) : null);
}

/** A number input. */
export function numInput(value, attrs = {}) {
  const n = el('input', { type: 'number', inputmode: 'numeric', step: '1', ...attrs });
  n.value = String(value);
  return n;
}

/** A row of toggle buttons (a segmented choice); `onchange(value)`. Returns {node, get, set}. */
export function segmented(name, options, value, onchange) {
  let current = value;
  const node = el('div', { class: 'ev-seg', role: 'radiogroup', 'aria-label': name });
  const buttons = options.map(([v, label]) => {
    const b = el('button', { type: 'button', role: 'radio', class: 'ev-seg-btn', 'data-value': v, testid: `seg-${name}-${v}`, text: label,
      onclick: () => { set(v); if (onchange) onchange(v); } });
    node.appendChild(b);
    return b;
  });
  function set(v) {
    current = v;
    for (const b of buttons) {
      const on = b.dataset.value === String(v);
      b.classList.toggle('on', on);
      b.setAttribute('aria-checked', on ? 'true' : 'false');
    }
  }
  set(value);
  return { node, get: () => current, set };
}

/** The presets the server offers (GET /api/presets), in the lobby's order. */
export async function loadPresetNames() {
  const data = await api.getPresets();
  const names = (data.presets || []).map((p) => p.name);
  return names.sort((a, b) => (PRESET_ORDER.indexOf(a) + 99 * (PRESET_ORDER.indexOf(a) < 0)) - (PRESET_ORDER.indexOf(b) + 99 * (PRESET_ORDER.indexOf(b) < 0)));
}

// ---------------------------------------------------------------- /events

const DEFAULTS = { game_minutes: 50, unlimited_from: 8, best_of_three_from: 4, swiss_from: 20, swiss_rounds: 3, session_tables: 30 };

export function mountEvents(root) {
  const state = { events: null, error: '', presets: null, busy: false, formError: '' };
  const form = {
    name: '', preset: 'standard', format: 'knockout', online: true, draw: 'random', watchers: true, seed: '', ...DEFAULTS,
  };
  let disposed = false;
  const page = el('section', { class: 'info-page ev-page ev-list-page', testid: 'events-page' });
  root.appendChild(page);
  let listBox = null;

  async function load() {
    try {
      const data = await ev.list();
      if (disposed) return;
      state.events = data.events || [];
      state.error = '';
    } catch (e) {
      if (disposed) return;
      state.error = errorText(e);
    }
    paintList();
  }

  async function loadPresets() {
    try {
      state.presets = await loadPresetNames();
    } catch (e) {
      state.presets = PRESET_ORDER.slice();
    }
    if (!disposed) build();
  }

  function eventRow(x) {
    return el('a', { class: 'ev-row', href: eventPath(x.id), 'data-link': '', testid: 'event-row', 'data-event': String(x.id) },
      el('div', { class: 'ev-row-main' },
        el('span', { class: 'ev-row-name', text: x.name || t('ev.untitled') }),
        el('span', { class: 'ev-row-meta muted' },
          el('span', { text: formatText(x.format) }),
          el('span', { text: t('ev.pairsN', { n: x.pairs ?? 0 }) }),
          x.round ? el('span', { text: t('ev.roundN', { n: x.round }) }) : null,
          x.organiser ? el('span', { text: t('ev.by', { name: x.organiser }) }) : null,
          x.created_at ? el('span', { text: fmtTime(x.created_at) }) : null)),
      statusTag(x.status));
  }

  function paintList() {
    if (!listBox || disposed) return;
    listBox.replaceChildren();
    if (state.events === null) {
      listBox.appendChild(el('p', { class: state.error ? 'form-error' : 'muted', text: state.error ? t('ev.loadFailed', { error: state.error }) : t('common.loading') }));
      return;
    }
    if (state.error) listBox.appendChild(el('p', { class: 'form-error', text: t('ev.loadFailed', { error: state.error }) }));
    if (!state.events.length) {
      listBox.appendChild(el('p', { class: 'empty-list', testid: 'events-empty', text: t('ev.none') }));
      return;
    }
    // running first, then registering, then finished; the newest first within each
    const rank = { running: 0, registering: 1, finished: 2 };
    const sorted = state.events.slice().sort((a, b) => (rank[a.status] ?? 3) - (rank[b.status] ?? 3) || String(b.created_at || '').localeCompare(String(a.created_at || '')));
    for (const x of sorted) listBox.appendChild(eventRow(x));
  }

  function buildForm() {
    const me = api.currentAccount();
    const panel = el('section', { class: 'panel ev-create', testid: 'event-create' });
    panel.appendChild(el('h2', { class: 'panel-title', text: t('ev.create.title') }));
    if (!me) {
      panel.appendChild(el('p', { class: 'muted', text: t('ev.create.login') }));
      return panel;
    }
    const f = el('form', { novalidate: true, testid: 'event-form' });
    panel.appendChild(f);
    const name = el('input', { type: 'text', maxlength: '80', testid: 'event-name', placeholder: t('ev.create.namePlaceholder'), required: true });
    name.value = form.name;
    name.addEventListener('input', () => { form.name = name.value; });
    f.appendChild(field(t('ev.create.name'), name));

    const preset = el('select', { testid: 'event-preset' });
    for (const p of state.presets || PRESET_ORDER) preset.appendChild(el('option', { value: p, text: presetText(p) }));
    preset.value = form.preset;
    preset.addEventListener('change', () => { form.preset = preset.value; });
    f.appendChild(field(t('ev.create.preset'), preset, has(`presetdesc.${form.preset}`) ? t(`presetdesc.${form.preset}`) : ''));
    preset.addEventListener('change', () => {
      const hint = preset.parentElement.querySelector('.field-hint');
      if (hint) hint.textContent = has(`presetdesc.${form.preset}`) ? t(`presetdesc.${form.preset}`) : '';
    });

    const fmtHint = el('p', { class: 'field-hint', testid: 'format-hint' });
    const fmt = segmented('format', FORMATS.map((x) => [x, formatText(x)]), form.format, (v) => { form.format = v; paintOptions(); });
    f.append(el('span', { class: 'field-label', text: t('ev.create.format') }), fmt.node, fmtHint);

    const where = segmented('online', [['online', t('ev.online')], ['physical', t('ev.physical')]], form.online ? 'online' : 'physical', (v) => { form.online = v === 'online'; paintOptions(); });
    const draw = segmented('draw', [['random', t('ev.draw.random')], ['seeded', t('ev.draw.seeded')]], form.draw, (v) => { form.draw = v; });
    f.append(el('span', { class: 'field-label', text: t('ev.create.tables') }), where.node,
      el('span', { class: 'field-label', text: t('ev.create.draw') }), draw.node);

    const nums = {};
    const numField = (key, min, max) => {
      const n = numInput(form[key], { min: String(min), max: String(max), testid: 'event-' + key.replace(/_/g, '-') });
      n.addEventListener('change', () => {
        let v = parseInt(n.value, 10);
        if (Number.isNaN(v)) v = DEFAULTS[key];
        v = Math.max(min, Math.min(max, v));
        n.value = String(v);
        form[key] = v;
      });
      nums[key] = field(t(`ev.opt.${key}`), n, has(`ev.opt.${key}.hint`) ? t(`ev.opt.${key}.hint`) : '', 'ev-num-field');
      return nums[key];
    };
    const grid = el('div', { class: 'ev-num-grid' },
      numField('game_minutes', 0, 600), numField('unlimited_from', 0, 1024), numField('best_of_three_from', 0, 1024),
      numField('swiss_from', 2, 1024), numField('swiss_rounds', 1, 20), numField('session_tables', 1, 500));
    f.appendChild(grid);

    // the draw's seed: empty for a random one (the server draws it); a number to make a draw again
    const seed = el('input', { type: 'text', inputmode: 'numeric', maxlength: '15', testid: 'event-seed', placeholder: t('ev.opt.seed.random') });
    seed.addEventListener('input', () => { form.seed = seed.value.trim(); });
    f.appendChild(field(t('ev.opt.seed'), seed, t('ev.opt.seed.hint'), 'ev-num-field'));

    const watch = el('input', { type: 'checkbox', testid: 'event-watchers' });
    watch.checked = form.watchers;
    watch.addEventListener('change', () => { form.watchers = watch.checked; });
    const watchRow = el('label', { class: 'check' }, watch, el('span', { text: t('ev.opt.watchers') }));
    f.appendChild(watchRow);

    const err = el('p', { class: 'form-error', role: 'alert', testid: 'event-create-error', hidden: !state.formError, text: state.formError });
    const submit = el('button', { type: 'submit', class: 'btn primary big ev-submit', testid: 'event-create-submit', disabled: state.busy, text: state.busy ? t('ev.create.busy') : t('ev.create.submit') });
    f.append(err, submit);

    function paintOptions() {
      fmtHint.textContent = t(`ev.format.${form.format}.hint`);
      nums.swiss_from.hidden = form.format !== 'city';
      nums.swiss_rounds.hidden = form.format === 'knockout';
      nums.unlimited_from.hidden = form.format === 'swiss';
      nums.best_of_three_from.hidden = form.format === 'swiss';
      nums.session_tables.hidden = form.format !== 'city';
      watchRow.hidden = !form.online;
    }
    paintOptions();

    f.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (state.busy) return;
      const nm = form.name.trim();
      if (!nm) {
        err.textContent = t('ev.create.nameRequired');
        err.hidden = false;
        name.focus();
        return;
      }
      state.busy = true;
      submit.disabled = true;
      submit.textContent = t('ev.create.busy');
      err.hidden = true;
      const body = {
        name: nm, preset: form.preset, format: form.format, online: form.online, draw: form.draw,
        game_minutes: form.game_minutes, unlimited_from: form.unlimited_from, best_of_three_from: form.best_of_three_from,
        swiss_from: form.swiss_from, swiss_rounds: form.swiss_rounds, session_tables: form.session_tables, watchers: form.online && form.watchers,
      };
      if (form.seed) {
        if (!/^[0-9]{1,15}$/.test(form.seed)) {
          err.textContent = t('ev.opt.seed.bad');
          err.hidden = false;
          state.busy = false;
          submit.disabled = false;
          submit.textContent = t('ev.create.submit');
          seed.focus();
          return;
        }
        body.seed = Number(form.seed);
      }
      try {
        const res = await ev.create(body);
        state.busy = false;
        if (!disposed) go(organisePath(res.id));
      } catch (ex) {
        state.busy = false;
        if (disposed) return;
        submit.disabled = false;
        submit.textContent = t('ev.create.submit');
        err.textContent = t('ev.create.failed', { error: errorText(ex) });
        err.hidden = false;
      }
    });
    return panel;
  }

  function build() {
    page.replaceChildren();
    page.appendChild(el('div', { class: 'page-head' },
      el('div', { class: 'page-head-text' },
        el('h1', { text: t('ev.title') }),
        el('p', { class: 'muted', text: t('ev.intro') })),
      el('a', { class: 'btn small', href: refereePath(), 'data-link': '', testid: 'referee-link', text: t('ref.open') })));
    const grid = el('div', { class: 'ev-list-grid' });
    const listPanel = el('section', { class: 'panel ev-list', testid: 'events-list' },
      el('div', { class: 'panel-head' },
        el('h2', { class: 'panel-title', text: t('ev.list') }),
        el('button', { type: 'button', class: 'btn ghost small', text: t('lobby.refresh'), onclick: load })));
    listBox = el('div', { class: 'ev-rows', 'aria-live': 'polite' });
    listPanel.appendChild(listBox);
    grid.append(listPanel, buildForm());
    page.appendChild(grid);
    paintList();
  }

  build();
  load();
  loadPresets();
  const stop = every(10000, load);
  const offLang = onLangChange(() => { document.title = `${t('ev.title')} · 炒地皮`; build(); });
  return () => { disposed = true; stop(); offLang(); };
}
