// The lobby: the rooms (暗炒房, 扛旗房, 明炒房 and the house tables), each with its rules in words, its tables, who
// sits there and who watches, 快速加入 and its leaderboard; and the form that opens a table (house rules, bots, watchers).
import { t, has, onLangChange } from './i18n.js';
import * as api from './api.js';
import { el } from './dom.js';

/** Every option's kind, its range, and the values of the enums (from rules.py). */
export const OPTION_GROUPS = [
  ['bidding', ['bid_order', 'lookback', 'no_bid_trump']],
  ['frying', ['fry', 'fry_visibility', 'fry_turns', 'dark_fry_penalty']],
  ['units', ['tractor_skip_level', 'trump_level_links', 'ace_low_tractor', 'ftk', 'ftk_pair', 'heart5_in_ftk']],
  ['following', ['trump_ftk_follow', 'ftk_must_follow', 'throw_fail_play', 'throw_penalty_per_card']],
  ['scoring', ['kitty_multiplier', 'level_table', 'must_play', 'circles']],
  ['flag', ['flag', 'flag_threshold', 'flag_fail_limit']],
  ['endings', ['shangtian', 'shangtian_credits', 'double_red5', 'jack_rule', 'red5_bonus']],
  ['credits', ['credits', 'escape_penalty']],
  ['time', ['declare_seconds', 'bury_seconds', 'play_seconds', 'fry_seconds']],
];

/** Each option's kind and allowed values, as the server says (GET /api/presets `options`: the engine's
 *  RuleSet.option_schema, so the form never offers a value the rules refuse):
 *  name → {kind, values?, min?, max?, multiple_of?, when_set?, needs?}. */
const SCHEMA = {};
/** The yes/no options that need `opt` on (they go off with it: schema `needs`). */
const needing = (opt) => Object.values(SCHEMA).filter((o) => o.needs === opt).map((o) => o.name);
const isChoice = (opt) => SCHEMA[opt]?.kind === 'choice';
const isNumber = (opt) => SCHEMA[opt]?.kind === 'int' || SCHEMA[opt]?.kind === 'optional_int';
const isReadOnly = (opt) => !SCHEMA[opt] || SCHEMA[opt].kind === 'bid_order' || SCHEMA[opt].kind === 'levels';
const SECONDS = new Set(['declare_seconds', 'bury_seconds', 'play_seconds', 'fry_seconds']);
const PRESET_ORDER = ['anchao', 'kangqi', 'mingchao', 'standard', 'contest2021', 'institute2023'];
const ROOMS = ['anchao', 'kangqi', 'mingchao'];
const BOTS = ['none', 'random', 'rules', 'search', 'learned'];
/** A table's seed is a 64-bit number: at most 19 digits, at most 2^63 − 1 (the lobby offers the ones from 0). */
const SEED_DIGITS = 19;
const SEED_MAX = '9223372036854775807';

/** What is wrong with the seed typed (digits only), in words; '' when it is fine or left empty (random). */
export function seedProblem(text) {
  if (!text) return '';
  if (!/^[0-9]+$/.test(text)) return t('rules.seedDigits');
  if (text.length > SEED_DIGITS || BigInt(text) > BigInt(SEED_MAX)) return t('rules.seedTooLarge', { max: SEED_MAX });
  return '';
}

/** The name of a preset or room ("anchao+" → "暗炒 + 房规"). */
export function roomName(room) {
  if (!room) return '';
  const plus = room.endsWith('+');
  const base = plus ? room.slice(0, -1) : room;
  const name = has(`preset.${base}`) ? t(`preset.${base}`) : base;
  return plus ? t('lobby.roomHouse', { name }) : name;
}

/** An option's value in words. */
export function optionValueText(option, value) {
  if (value === null || value === undefined) return t('common.none');
  if (typeof value === 'boolean') return value ? t('common.on') : t('common.off');
  if (Array.isArray(value)) return value.length ? value.map((r) => (r === 'T' ? '10' : r)).join(t('common.listSep')) : t('common.none');
  if (isChoice(option)) return has(`optval.${option}.${value}`) ? t(`optval.${option}.${value}`) : String(value);
  if (option === 'bid_order') return value === 'unordered' ? t('optval.bid_order.unordered') : String(value).replace(/</g, ' < ');
  if (SECONDS.has(option)) return t('common.seconds', { n: value });
  return String(value);
}


function go(path) {
  window.dispatchEvent(new CustomEvent('chaodipi:navigate', { detail: { path } }));
}

export function mountLobby(root) {
  const state = {
    presets: null, // {name: rules}
    presetError: null,
    preset: 'anchao',
    overrides: {},
    seed: "",
    rulesOpen: false,
    bots: { 1: 'rules', 2: 'rules', 3: 'rules' },
    tableName: '',
    name: api.defaultName(t('lobby.defaultNamePrefix')),
    creating: false,
    createError: '',
    rooms: null,
    extra: [],
    quickBots: {},
    quickBusy: '',
    quickError: {},
    rulesShown: {},
    watch: true,
    watchDelay: 0,
    tablesError: '',
    tablesKey: '',
    busy: new Set(),
    rowError: {},
  };
  let disposed = false;
  let timer = null;

  const section = el('section', { class: 'lobby', testid: 'lobby' });
  root.appendChild(section);

  // ---------------------------------------------------------------- create form
  let nameInput, tableNameInput, presetSelect, rulesEditor, rulesToggle, summaryEl, createBtn, createErr, roomButtons, botSelects;

  function buildForm() {
    const form = el('form', { class: 'panel create-panel', testid: 'create-form', novalidate: true });
    form.addEventListener('submit', (e) => { e.preventDefault(); create(); });

    form.appendChild(el('h2', { class: 'panel-title', text: t('lobby.createTitle') }));

    nameInput = el('input', { type: 'text', maxlength: '24', autocomplete: 'nickname', testid: 'player-name', id: 'player-name', placeholder: t('lobby.namePlaceholder') });
    nameInput.value = state.name;
    const account = api.currentAccount();
    if (account) {
      // a logged-in player sits under the account's name
      nameInput.value = account.username;
      nameInput.disabled = true;
      nameInput.title = t('lobby.accountName');
    }
    nameInput.addEventListener('input', () => { state.name = nameInput.value; });
    nameInput.addEventListener('change', () => { const v = nameInput.value.trim(); if (v) api.setName(v); });
    tableNameInput = el('input', { type: 'text', maxlength: '64', id: 'table-name', placeholder: t('lobby.tableNamePlaceholder') });
    tableNameInput.value = state.tableName;
    tableNameInput.addEventListener('input', () => { state.tableName = tableNameInput.value; });
    form.appendChild(el('div', { class: 'field-row' },
      el('label', { class: 'field' }, el('span', { class: 'field-label', text: t('lobby.yourName') }), nameInput),
      el('label', { class: 'field' }, el('span', { class: 'field-label', text: t('lobby.tableName') }), tableNameInput)));

    // rooms
    form.appendChild(el('div', { class: 'field-label', text: t('lobby.roomType') }));
    const rooms = el('div', { class: 'rooms', role: 'radiogroup', 'aria-label': t('lobby.roomType') });
    roomButtons = {};
    for (const r of [...ROOMS, 'other']) {
      const b = el('button', { type: 'button', class: 'room-card room-' + r, testid: 'room-' + r, role: 'radio' },
        el('span', { class: 'room-name', text: r === 'other' ? t('lobby.otherPresets') : t(`preset.${r}`) }),
        el('span', { class: 'room-desc', text: t(`room.${r}.desc`) }));
      b.addEventListener('click', () => {
        if (r === 'other') {
          if (ROOMS.includes(state.preset)) setPreset('standard');
          presetSelect.focus();
        } else setPreset(r);
      });
      roomButtons[r] = b;
      rooms.appendChild(b);
    }
    form.appendChild(rooms);

    presetSelect = el('select', { testid: 'preset-select', id: 'preset-select', 'aria-label': t('lobby.presetSelect') });
    for (const p of PRESET_ORDER) presetSelect.appendChild(el('option', { value: p, text: t(`preset.${p}`) }));
    presetSelect.value = state.preset;
    presetSelect.addEventListener('change', () => setPreset(presetSelect.value));
    form.appendChild(el('label', { class: 'field preset-field' }, el('span', { class: 'field-label', text: t('lobby.presetSelect') }), presetSelect,
      el('span', { class: 'field-hint', text: '' })));

    // seats and bots
    form.appendChild(el('div', { class: 'field-label', text: t('lobby.seatsTitle') }));
    const seats = el('div', { class: 'seat-choices' });
    seats.appendChild(el('div', { class: 'seat-choice me' },
      el('span', { class: 'seat-no', text: t('seat.number', { n: 0 }) }),
      el('span', { class: 'seat-me', text: t('lobby.seatMe') })));
    botSelects = {};
    for (const n of [1, 2, 3]) {
      const sel = el('select', { testid: 'bot-seat-' + n, 'aria-label': t('lobby.botFor', { n }) });
      for (const b of BOTS) sel.appendChild(el('option', { value: b, text: t(`bot.${b}`) }));
      sel.value = state.bots[n];
      sel.addEventListener('change', () => { state.bots[n] = sel.value; paintForm(); });
      botSelects[n] = sel;
      const partner = n === 2;
      seats.appendChild(el('label', { class: 'seat-choice' },
        el('span', { class: 'seat-no', text: t('seat.number', { n }) + ' · ' + (partner ? t('lobby.partner') : t('lobby.opponent')) }), sel));
    }
    form.appendChild(seats);
    form.appendChild(el('p', { class: 'field-hint', text: t('lobby.botsHint') }));

    // spectators: whether the table may be watched, and how many whole tricks behind the watchers are kept
    const watchCb = el('input', { type: 'checkbox', id: 'opt-watch', testid: 'allow-watch' });
    watchCb.checked = state.watch;
    const delaySel = el('select', { id: 'opt-watch-delay', testid: 'watch-delay', 'aria-label': t('lobby.watchDelay') });
    for (let n = 0; n <= 5; n++) delaySel.appendChild(el('option', { value: String(n), text: n ? t('lobby.watchDelayN', { n }) : t('lobby.watchDelay0') }));
    delaySel.value = String(state.watchDelay);
    delaySel.disabled = !state.watch;
    watchCb.addEventListener('change', () => { state.watch = watchCb.checked; delaySel.disabled = !state.watch; });
    delaySel.addEventListener('change', () => { state.watchDelay = Number(delaySel.value); });
    form.appendChild(el('div', { class: 'field-row watch-row' },
      el('label', { class: 'check' }, watchCb, el('span', { text: t('lobby.allowWatch') })),
      el('label', { class: 'field watch-delay-field' }, el('span', { class: 'field-label', text: t('lobby.watchDelay') }), delaySel)));

    // house rules
    rulesToggle = el('button', { type: 'button', class: 'rules-toggle', testid: 'rules-toggle', 'aria-controls': 'rules-editor' });
    rulesToggle.addEventListener('click', () => { state.rulesOpen = !state.rulesOpen; paintForm(); });
    form.appendChild(rulesToggle);
    rulesEditor = el('div', { class: 'rules-editor', testid: 'rules-editor', id: 'rules-editor' });
    form.appendChild(rulesEditor);
    summaryEl = el('div', { class: 'overrides-summary', testid: 'overrides-summary', 'aria-live': 'polite' });
    form.appendChild(summaryEl);

    createErr = el('div', { class: 'form-error', role: 'alert' });
    createBtn = el('button', { type: 'submit', class: 'btn primary big', testid: 'create-table' });
    form.appendChild(createErr);
    form.appendChild(createBtn);
    return form;
  }

  function presetRules() {
    return state.presets ? state.presets[state.preset] : null;
  }

  function setPreset(p) {
    state.preset = p;
    const base = presetRules();
    if (base) {
      for (const [k, v] of Object.entries(state.overrides)) {
        if (JSON.stringify(base[k]) === JSON.stringify(v)) delete state.overrides[k];
      }
    }
    presetSelect.value = p;
    buildEditor();
    paintForm();
  }

  function currentValue(opt) {
    if (opt in state.overrides) return state.overrides[opt];
    const base = presetRules();
    return base ? base[opt] : undefined;
  }

  function setOverride(opt, value) {
    const base = presetRules();
    if (base && JSON.stringify(base[opt]) === JSON.stringify(value)) delete state.overrides[opt];
    else state.overrides[opt] = value;
    // an option that needs this one goes off with it (no 5·10·K means no pair of them either: the schema's `needs`)
    if (value === false) for (const o of needing(opt)) setOverrideQuiet(o, false);
    buildEditor();
    paintForm();
  }

  function setOverrideQuiet(opt, value) {
    const base = presetRules();
    if (base && JSON.stringify(base[opt]) === JSON.stringify(value)) delete state.overrides[opt];
    else state.overrides[opt] = value;
  }

  function control(opt, value) {
    const id = 'opt-' + opt;
    if (isReadOnly(opt)) {
      return el('span', { class: 'opt-readonly', id, text: optionValueText(opt, value) });
    }
    if (typeof value === 'boolean') {
      const cb = el('input', { type: 'checkbox', id, 'data-option': opt });
      cb.checked = value;
      if (SCHEMA[opt].needs && currentValue(SCHEMA[opt].needs) === false) cb.disabled = true;
      cb.addEventListener('change', () => setOverride(opt, cb.checked));
      return el('label', { class: 'switch' }, cb, el('span', { class: 'switch-text', text: value ? t('common.on') : t('common.off') }));
    }
    if (isChoice(opt)) {
      const sel = el('select', { id, 'data-option': opt });
      for (const v of SCHEMA[opt].values) sel.appendChild(el('option', { value: v, text: optionValueText(opt, v) }));
      sel.value = value;
      sel.addEventListener('change', () => setOverride(opt, sel.value));
      return sel;
    }
    if (isNumber(opt)) {
      const { min: lo, max: hi } = SCHEMA[opt];
      const step = SCHEMA[opt].multiple_of || 1;
      const num = el('input', { type: 'number', id, min: String(lo), max: String(hi), step: String(step), inputmode: 'numeric', 'data-option': opt });
      const wrap = el('span', { class: 'num-control' });
      const commit = () => {
        let n = parseInt(num.value, 10);
        if (Number.isNaN(n)) n = value === null ? lo : value;
        n = Math.max(lo, Math.min(hi, n));
        if (step > 1) n = Math.round(n / step) * step;
        setOverride(opt, n);
      };
      if (SCHEMA[opt].kind === 'optional_int') {
        const on = el('input', { type: 'checkbox', 'aria-label': t('rules.setNumber'), 'data-option-on': opt });
        on.checked = value !== null;
        on.addEventListener('change', () => {
          if (on.checked) {
            const base = presetRules();
            setOverride(opt, base && base[opt] !== null ? base[opt] : SCHEMA[opt].when_set);
          } else setOverride(opt, null);
        });
        wrap.appendChild(on);
        num.disabled = value === null;
      }
      num.value = value === null ? '' : String(value);
      num.placeholder = value === null ? t('common.none') : '';
      num.addEventListener('change', commit);
      wrap.appendChild(num);
      if (SECONDS.has(opt)) wrap.appendChild(el('span', { class: 'unit', text: t('common.secondsUnit') }));
      return wrap;
    }
    return el('span', { class: 'opt-readonly', id, text: String(value) });
  }

  function buildEditor() {
    rulesEditor.replaceChildren();
    const base = presetRules();
    if (!base) {
      rulesEditor.appendChild(el('p', { class: 'muted', text: state.presetError ? t('lobby.presetsFailed', { error: state.presetError }) : t('common.loading') }));
      return;
    }
    rulesEditor.appendChild(el('p', { class: 'field-hint', text: t('rules.editorHint', { preset: t(`preset.${state.preset}`) }) }));
    // the seed: the same seed deals the same cards (a rematch, a tournament's deals); empty: random.
    // Up to 19 digits (a 64-bit seed); it is sent as text, since a JSON number (a double) would round it.
    const seedInput = el('input', { type: 'text', inputmode: 'numeric', maxlength: String(SEED_DIGITS), id: 'opt-seed', testid: 'seed', placeholder: t('rules.seedRandom'), 'aria-describedby': 'opt-seed-error' });
    const seedErr = el('p', { class: 'form-error', id: 'opt-seed-error', testid: 'seed-error', role: 'alert' });
    const paintSeed = () => {
      const problem = seedProblem(state.seed);
      seedErr.textContent = problem;
      seedErr.hidden = !problem;
      if (problem) seedInput.setAttribute('aria-invalid', 'true');
      else seedInput.removeAttribute('aria-invalid');
    };
    seedInput.value = state.seed || '';
    seedInput.addEventListener('input', () => {
      seedInput.value = seedInput.value.replace(/[^0-9]/g, '').slice(0, SEED_DIGITS);
      state.seed = seedInput.value;
      paintSeed();
    });
    paintSeed();
    rulesEditor.appendChild(el('div', { class: 'opt-row seed-row' },
      el('label', { class: 'opt-text', for: 'opt-seed' },
        el('span', { class: 'opt-name', text: t('rules.seed') }),
        el('span', { class: 'opt-desc', text: t('rules.seedDesc') })),
      el('div', { class: 'opt-control' }, seedInput)));
    rulesEditor.appendChild(seedErr);
    const known = new Set(OPTION_GROUPS.flatMap((g) => g[1]));
    const groups = OPTION_GROUPS.map(([g, opts]) => [g, opts.filter((o) => o in base)]);
    const extra = Object.keys(base).filter((k) => k !== 'name' && !known.has(k));
    if (extra.length) groups.push(['other', extra]);
    for (const [g, opts] of groups) {
      if (!opts.length) continue;
      const fs = el('fieldset', { class: 'opt-group' }, el('legend', { text: t(`rules.group.${g}`) }));
      for (const opt of opts) {
        const value = currentValue(opt);
        const changed = opt in state.overrides;
        const row = el('div', { class: 'opt-row' + (changed ? ' changed' : '') + (isReadOnly(opt) ? ' readonly' : ''), 'data-option-row': opt },
          el('label', { class: 'opt-text', for: 'opt-' + opt },
            el('span', { class: 'opt-name', text: has(`opt.${opt}.name`) ? t(`opt.${opt}.name`) : opt }),
            el('span', { class: 'opt-desc', text: has(`opt.${opt}.desc`) ? t(`opt.${opt}.desc`) : '' })),
          el('div', { class: 'opt-control' }, control(opt, value),
            changed ? el('button', { type: 'button', class: 'link-btn reset', text: t('rules.reset'), onclick: () => { delete state.overrides[opt]; for (const o of needing(opt)) delete state.overrides[o]; buildEditor(); paintForm(); } }) : null));
        fs.appendChild(row);
      }
      rulesEditor.appendChild(fs);
    }
  }

  function paintForm() {
    for (const [r, b] of Object.entries(roomButtons)) {
      const on = r === 'other' ? !ROOMS.includes(state.preset) : state.preset === r;
      b.classList.toggle('selected', on);
      b.setAttribute('aria-checked', on ? 'true' : 'false');
    }
    const other = !ROOMS.includes(state.preset);
    roomButtons.other.querySelector('.room-desc').textContent = other ? t(`preset.${state.preset}`) : t('room.other.desc');
    const hint = presetSelect.parentElement.querySelector('.field-hint');
    hint.textContent = t(`presetdesc.${state.preset}`);
    rulesToggle.textContent = (state.rulesOpen ? '▾ ' : '▸ ') + t('rules.toggle') + (Object.keys(state.overrides).length ? ` (${Object.keys(state.overrides).length})` : '');
    rulesToggle.setAttribute('aria-expanded', state.rulesOpen ? 'true' : 'false');
    rulesEditor.hidden = !state.rulesOpen;
    // summary
    summaryEl.replaceChildren();
    const keys = Object.keys(state.overrides);
    summaryEl.appendChild(el('span', { class: 'summary-label', text: t('rules.summaryLabel', { preset: t(`preset.${state.preset}`) }) }));
    if (!keys.length) summaryEl.appendChild(el('span', { class: 'summary-none', text: t('rules.noOverrides') }));
    for (const k of keys) {
      summaryEl.appendChild(el('span', { class: 'override-chip', 'data-option': k },
        t('rules.overrideItem', { name: has(`opt.${k}.name`) ? t(`opt.${k}.name`) : k, value: optionValueText(k, state.overrides[k]) })));
    }
    summaryEl.classList.toggle('has-overrides', keys.length > 0);
    const free = [1, 2, 3].filter((n) => state.bots[n] === 'none').length;
    createBtn.textContent = state.creating ? t('lobby.creating') : free ? t('lobby.createAndWait', { n: free }) : t('lobby.createAndPlay');
    createBtn.disabled = state.creating || !state.presets;
    createErr.textContent = state.createError;
    createErr.hidden = !state.createError;
  }

  async function create() {
    if (state.creating) return;
    const name = nameInput.value.trim();
    if (!name && !api.currentAccount()) {
      state.createError = t('lobby.nameRequired');
      paintForm();
      nameInput.focus();
      return;
    }
    const seedBad = seedProblem(state.seed);
    if (seedBad) {
      state.createError = seedBad;
      state.rulesOpen = true;
      buildEditor();
      paintForm();
      const input = rulesEditor.querySelector('#opt-seed');
      if (input) input.focus();
      return;
    }
    state.creating = true;
    state.createError = '';
    paintForm();
    try {
      const bots = {};
      for (const n of [1, 2, 3]) if (state.bots[n] !== 'none') bots[String(n)] = state.bots[n];
      const body = { name: state.tableName.trim() || t('lobby.defaultTableName', { name, room: t(`preset.${state.preset}`) }).slice(0, 64), rules: { preset: state.preset, set: { ...state.overrides } }, bots };
      body.watch = !!state.watch;
      body.watch_delay = state.watch ? state.watchDelay : 0;
      if (state.seed) body.seed = BigInt(state.seed).toString(); // text: the server reads every 64-bit seed exactly
      const table = await api.createTable(body);
      await api.sitAt(table.id, name, 0);
      state.creating = false;
      go('/t/' + table.id);
    } catch (e) {
      state.creating = false;
      state.createError = t('lobby.createFailed', { error: e.message });
      if (!disposed) paintForm();
    }
  }

  // ---------------------------------------------------------------- rooms and their tables
  let roomsEl;

  function buildRooms() {
    const col = el('section', { class: 'rooms-col', testid: 'rooms', 'aria-label': t('rooms.title') });
    col.appendChild(el('div', { class: 'panel-head rooms-head' },
      el('h2', { class: 'panel-title', text: t('rooms.title') }),
      el('button', { type: 'button', class: 'btn ghost small', text: t('lobby.refresh'), onclick: () => refresh(true) })));
    roomsEl = el('div', { class: 'room-list', 'aria-live': 'polite' });
    col.appendChild(roomsEl);
    return col;
  }

  /** A seat's name: an account's links to its player page; a bot is marked as one. */
  function seatNameEl(seat) {
    if (seat.account) {
      return el('a', { class: 'seat-chip-name acct-link', href: api.playerPath(seat.account), 'data-link': '', testid: 'player-link', text: seat.account });
    }
    // a bot by what it is, in the reader's language (中级机器人), not by the server's name for it
    const name = seat.kind === 'bot' ? (has(`bot.name.${seat.bot}`) ? t(`bot.name.${seat.bot}`) : t('bot.name.rules')) : seat.name;
    return el('span', { class: 'seat-chip-name', text: name });
  }

  function seatChip(table, seat, n, mine) {
    if (seat) {
      return el('div', { class: 'seat-chip taken' + (seat.kind === 'bot' ? ' bot' : '') + (mine && mine.seat === n ? ' me' : ''), 'data-seat': String(n), 'data-kind': seat.kind },
        el('span', { class: 'seat-chip-no', text: String(n) }),
        seatNameEl(seat),
        seat.auto ? el('span', { class: 'tag auto-tag', text: t('seat.auto') }) : null,
        seat.kind === 'player' && seat.connected === false ? el('span', { class: 'tag off-tag', text: t('seat.offline') }) : null);
    }
    const chip = el('div', { class: 'seat-chip free', 'data-seat': String(n) },
      el('span', { class: 'seat-chip-no', text: String(n) }),
      el('span', { class: 'seat-chip-name free-text', text: t('seat.free') }));
    if (table.status === 'waiting') {
      const busy = state.busy.has(table.id);
      if (!mine) {
        chip.appendChild(el('button', { type: 'button', class: 'btn small primary', testid: 'join-seat-' + n, disabled: busy, text: t('lobby.join'), onclick: () => join(table.id, n) }));
      }
      const sel = el('select', { class: 'small-select', 'aria-label': t('lobby.botStrength'), 'data-add-bot-select': String(n) });
      for (const b of ['rules', 'random', 'search', 'learned']) sel.appendChild(el('option', { value: b, text: t(`bot.level.${b}`) }));
      chip.appendChild(el('span', { class: 'add-bot' }, sel,
        el('button', { type: 'button', class: 'btn small', testid: 'add-bot-' + n, disabled: busy, text: t('lobby.addBot'), onclick: () => addBot(table.id, n, sel.value) })));
    }
    return chip;
  }

  /** A house table's rules in words: its preset and what it changes. */
  function houseRules(table) {
    const spec = table.rules && typeof table.rules === 'object' ? table.rules : null;
    if (!spec) return null;
    const set = spec.set || {};
    const box = el('div', { class: 'house-rules' },
      el('span', { class: 'summary-label', text: t('rules.summaryLabel', { preset: has(`preset.${spec.preset}`) ? t(`preset.${spec.preset}`) : spec.preset }) }));
    const keys = Object.keys(set);
    if (!keys.length) box.appendChild(el('span', { class: 'summary-none', text: t('rules.noOverrides') }));
    for (const k of keys) {
      box.appendChild(el('span', { class: 'override-chip', 'data-option': k },
        t('rules.overrideItem', { name: has(`opt.${k}.name`) ? t(`opt.${k}.name`) : k, value: optionValueText(k, set[k]) })));
    }
    return box;
  }

  function tableRow(table) {
    const mine = api.getSeat(table.id);
    const seats = table.seats || [null, null, null, null];
    const row = el('article', { class: 'table-row status-' + table.status, testid: 'table-row-' + table.id, 'data-table': String(table.id) });
    const watchers = Number(table.watchers) || 0;
    row.appendChild(el('div', { class: 'table-row-head' },
      el('span', { class: 'table-row-name', text: table.name || t('lobby.tableNo', { id: table.id }) }),
      el('span', { class: 'tag status-tag status-' + table.status, text: t(`status.${table.status}`) }),
      table.game && table.status !== 'waiting' ? el('span', { class: 'table-row-meta', text: t('lobby.gameHand', { game: table.game.number, hand: table.game.hands }) }) : null,
      watchers ? el('span', { class: 'tag watch-tag', testid: 'watchers-' + table.id, text: t('rooms.watchers', { n: watchers }) }) : null,
      table.watch === false ? el('span', { class: 'tag off-tag', text: t('rooms.noWatching') }) : null,
      table.watch !== false && table.watch_delay ? el('span', { class: 'tag', text: t('rooms.delayTag', { n: table.watch_delay }) }) : null));
    if (table.room === 'house' || (table.room && table.room.endsWith('+'))) {
      const hr = houseRules(table);
      if (hr) row.appendChild(hr);
    }
    const seatBox = el('div', { class: 'seat-chips' });
    seats.forEach((s, n) => seatBox.appendChild(seatChip(table, s, n, mine)));
    row.appendChild(seatBox);
    const actions = el('div', { class: 'table-row-actions' });
    if (mine) {
      actions.appendChild(el('a', { href: '/t/' + table.id, 'data-link': '', class: 'btn primary small', testid: 'back-to-' + table.id, text: t('lobby.backToTable') }));
    } else if (table.status !== 'waiting') {
      actions.appendChild(el('span', { class: 'muted small-text', text: table.status === 'finished' ? t('status.finished') : t('lobby.inProgress') }));
    }
    if (!mine && table.watch !== false && table.status !== 'finished') {
      actions.appendChild(el('a', { href: `/t/${table.id}?watch=1`, 'data-link': '', class: 'btn small watch-btn', testid: 'watch-' + table.id, text: t('rooms.watch') }));
    }
    if (state.rowError[table.id]) actions.appendChild(el('span', { class: 'form-error inline', text: state.rowError[table.id] }));
    row.appendChild(actions);
    return row;
  }

  /** A room's rules in words: the preset's sentence, and each option (folded away). */
  function roomRules(room) {
    const box = el('div', { class: 'room-rules' });
    if (room.room === 'house') {
      box.appendChild(el('p', { class: 'room-rules-text', text: t('rooms.house.desc') }));
      return box;
    }
    const preset = room.rules && room.rules.preset ? room.rules.preset : room.room;
    box.appendChild(el('p', { class: 'room-rules-text', testid: 'room-rules-' + room.room, text: has(`presetdesc.${preset}`) ? t(`presetdesc.${preset}`) : t(`room.${room.room}.desc`) }));
    // every option in words: the server's description of the room's rules (or the preset's, from an older server)
    const base = state.presets ? state.presets[preset] : null;
    const full = room.describe && typeof room.describe === 'object' ? room.describe : base ? { ...base, ...((room.rules && room.rules.set) || {}) } : null;
    if (full) {
      // (kept open across the list's refreshes)
      const details = el('details', { class: 'room-rules-all', open: !!state.rulesShown[room.room] }, el('summary', { text: t('rooms.allRules') }));
      details.addEventListener('toggle', () => { state.rulesShown[room.room] = details.open; });
      const list = el('dl', { class: 'rules-list' });
      for (const [, opts] of OPTION_GROUPS) {
        for (const opt of opts) {
          if (!(opt in full)) continue;
          list.append(el('dt', { text: has(`opt.${opt}.name`) ? t(`opt.${opt}.name`) : opt }), el('dd', { text: optionValueText(opt, full[opt]) }));
        }
      }
      details.appendChild(list);
      box.appendChild(details);
    }
    return box;
  }

  function roomPanel(room) {
    const r = room.room;
    const panel = el('section', { class: 'panel room-panel room-' + r, testid: 'room-panel-' + r, 'data-room': r });
    const credits = room.credits;
    panel.appendChild(el('div', { class: 'room-head' },
      el('h3', { class: 'room-title', text: t(`rooms.${r}.title`) }),
      credits === true ? el('span', { class: 'tag credit-room-tag', text: t('rooms.credits') }) : credits === false ? el('span', { class: 'tag', text: t('rooms.noCredits') }) : null,
      el('span', { class: 'room-counts muted', testid: 'room-counts-' + r, text: t('rooms.counts', { players: room.players || 0, watchers: room.watchers || 0 }) }),
      el('a', { class: 'board-link', href: api.leaderboardPath(r), 'data-link': '', testid: 'leaderboard-' + r, text: t('rooms.leaderboard') })));
    panel.appendChild(roomRules(room));
    if (r !== 'house') {
      const cb = el('input', { type: 'checkbox', testid: 'quick-bots-' + r });
      cb.checked = !!state.quickBots[r];
      cb.addEventListener('change', () => { state.quickBots[r] = cb.checked; });
      const busy = state.quickBusy === r;
      panel.appendChild(el('div', { class: 'quick-row' },
        el('button', { type: 'button', class: 'btn primary', testid: 'quick-' + r, disabled: !!state.quickBusy, text: busy ? t('rooms.quickBusy') : t('rooms.quick'), onclick: () => quick(r) }),
        el('label', { class: 'check' }, cb, el('span', { text: t('rooms.withBots') }))));
      if (state.quickError[r]) panel.appendChild(el('p', { class: 'form-error', role: 'alert', text: state.quickError[r] }));
    }
    const list = el('div', { class: 'table-list', testid: 'table-list-' + r });
    const tables = room.tables || [];
    if (!tables.length) list.appendChild(el('p', { class: 'empty-list', text: r === 'house' ? t('rooms.house.empty') : t('rooms.empty') }));
    for (const table of tables.slice(0, 12)) list.appendChild(tableRow(table));
    if (tables.length > 12) list.appendChild(el('p', { class: 'muted small-text', text: t('rooms.more', { n: tables.length - 12 }) }));
    panel.appendChild(list);
    return panel;
  }

  function renderList() {
    if (!roomsEl) return;
    roomsEl.replaceChildren();
    if (state.rooms === null) {
      roomsEl.appendChild(el('p', { class: 'muted', text: state.tablesError ? t('lobby.listFailed', { error: state.tablesError }) : t('common.loading') }));
      return;
    }
    if (state.tablesError) roomsEl.appendChild(el('p', { class: 'form-error', text: t('lobby.listFailed', { error: state.tablesError }) }));
    if (state.extra.length) {
      const mine = el('section', { class: 'panel room-panel room-mine', testid: 'my-tables' },
        el('div', { class: 'room-head' }, el('h3', { class: 'room-title', text: t('rooms.mine') })));
      const list = el('div', { class: 'table-list' });
      for (const table of state.extra) list.appendChild(tableRow(table));
      mine.appendChild(list);
      roomsEl.appendChild(mine);
    }
    for (const room of state.rooms) roomsEl.appendChild(roomPanel(room));
  }

  async function quick(room) {
    if (state.quickBusy) return;
    const name = (nameInput ? nameInput.value : state.name).trim() || api.defaultName(t('lobby.defaultNamePrefix'));
    state.quickBusy = room;
    delete state.quickError[room];
    renderList();
    try {
      const res = await api.quickSeat(room, name, !!state.quickBots[room]);
      state.quickBusy = '';
      go('/t/' + res.table);
    } catch (e) {
      state.quickBusy = '';
      state.quickError[room] = t('rooms.quickFailed', { error: e.message });
      if (!disposed) renderList();
    }
  }

  async function join(id, seat) {
    const name = nameInput.value.trim();
    if (!name && !api.currentAccount()) {
      state.rowError[id] = t('lobby.nameRequired');
      renderList();
      nameInput.focus();
      return;
    }
    state.busy.add(id);
    renderList();
    try {
      await api.sitAt(id, name, seat);
      go('/t/' + id);
    } catch (e) {
      state.busy.delete(id);
      state.rowError[id] = e.message;
      if (!disposed) { renderList(); refresh(true); }
    }
  }

  async function addBot(id, seat, bot) {
    state.busy.add(id);
    renderList();
    try {
      await api.takeSeat(id, { bot, seat });
      delete state.rowError[id];
    } catch (e) {
      state.rowError[id] = e.message;
    }
    state.busy.delete(id);
    if (!disposed) refresh(true);
  }

  /** What the list shows of a table (a change elsewhere, its seq or a card dealt, draws nothing again). */
  function shownOf(x) {
    return [x.id, x.name, x.status, x.room, x.rules, x.watch, x.watch_delay, x.watchers, x.game && [x.game.number, x.game.hands],
      (x.seats || []).map((s) => (s ? [s.name, s.kind, s.bot, s.auto, s.connected, s.account] : null))];
  }

  /** The rooms: the server's (GET /api/rooms), or, from a server without rooms, its tables sorted into them. */
  async function loadRooms() {
    try {
      return (await api.getRooms()).rooms;
    } catch (e) {
      if (e.status !== 404) throw e;
    }
    const [waiting, playing] = await Promise.all([api.listTables('waiting'), api.listTables('playing')]);
    const tables = [...waiting.tables, ...playing.tables.slice(0, 40)];
    return [...ROOMS, 'house'].map((r) => {
      const mine = tables.filter((x) => (ROOMS.includes(x.room) ? x.room : 'house') === r);
      return { room: r, rules: r === 'house' ? null : { preset: r, set: {} }, credits: null, tables: mine, players: mine.reduce((n, x) => n + (x.seats || []).filter((s) => s && s.kind !== 'bot').length, 0), watchers: mine.reduce((n, x) => n + (Number(x.watchers) || 0), 0) };
    });
  }

  async function refresh(force = false) {
    try {
      const rooms = await loadRooms();
      if (disposed) return;
      // the tables this browser holds a seat at stay visible (a finished game: again, replay)
      const listed = new Set(rooms.flatMap((r) => (r.tables || []).map((x) => x.id)));
      const extra = [];
      for (const id of api.mySeatTables().filter((x) => !listed.has(x)).slice(0, 6)) {
        try {
          extra.push(await api.getTable(id));
        } catch (e) {
          if (e.status === 404) api.forgetSeat(id);
        }
      }
      if (disposed) return;
      const key = JSON.stringify([rooms.map((r) => [r.room, r.players, r.watchers, r.credits, (r.tables || []).map(shownOf)]), extra.map(shownOf)]);
      state.tablesError = '';
      if (key === state.tablesKey && !force) return;
      // don't pull a select or a checkbox from under the user's finger
      if (!force && roomsEl && roomsEl.contains(document.activeElement) && ['SELECT', 'INPUT'].includes(document.activeElement.tagName)) return;
      state.tablesKey = key;
      state.rooms = rooms;
      state.extra = extra;
    } catch (e) {
      if (disposed) return;
      state.tablesError = e.message;
    }
    renderList();
  }

  async function loadPresets() {
    try {
      const data = await api.getPresets();
      if (disposed) return;
      state.presets = {};
      for (const p of data.presets) state.presets[p.name] = p.rules;
      for (const o of data.options || []) SCHEMA[o.name] = o;
      state.presetError = null;
      renderList(); // the rooms' rules, option by option
    } catch (e) {
      if (disposed) return;
      state.presetError = e.message;
      setTimeout(() => { if (!disposed) loadPresets(); }, 3000);
    }
    buildEditor();
    paintForm();
  }

  function build() {
    section.replaceChildren();
    const intro = el('div', { class: 'lobby-intro' },
      el('h1', { text: t('lobby.heading') }),
      el('p', { class: 'muted', text: t('lobby.tagline') }));
    section.appendChild(intro);
    const grid = el('div', { class: 'lobby-grid' });
    grid.appendChild(buildRooms());
    grid.appendChild(buildForm());
    section.appendChild(grid);
    buildEditor();
    paintForm();
    renderList();
  }

  build();
  loadPresets();
  refresh(true);
  timer = setInterval(() => { if (!document.hidden) refresh(); }, 4000);
  const offLang = onLangChange(() => { document.title = `${t('lobby.title')} · 炒地皮`; build(); });

  return () => {
    disposed = true;
    clearInterval(timer);
    offLang();
  };
}
