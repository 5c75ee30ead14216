// An event's organiser page /events/{id}/organise (the organiser and the referees; anyone else is sent to the
// public page): register pairs (one by one, or a CSV), withdraw a pair, forbid a pairing, add a referee; pair the
// next round, see the draft with its reasons, publish it, start it (the online tables open), undo it before the
// start; enter a physical table's result; give a penalty (§14.4); export CSV; read the event's log.
// The forms are built once and keep what is typed; the lists are drawn again when the event's version changes.
import { t, has, getLang, onLangChange } from './i18n.js';
import * as api from './api.js';
import { el } from './dom.js';
import { fmtTime } from './format.js';
import {
  LEVELS, ev, every, errorText, eventPath, field, levelText, pairBlock, pairLabel, pairMap, refereePath, segmented,
} from './events.js';
import { byCode, eventHead, pairingCard, remember, roundLabel, roundMeta, severalSessions, standingsEl } from './event-page.js';
import { penaltyForm } from './referee-tool.js';

/** A short message under a form or a panel: ok (green) or an error (red). */
function flashBox(testid) {
  const node = el('p', { class: 'ev-flash', role: 'status', testid, hidden: true });
  let timer = null;
  return {
    node,
    ok(text) { clearTimeout(timer); node.className = 'ev-flash ev-ok'; node.textContent = text; node.hidden = false; timer = setTimeout(() => { node.hidden = true; }, 6000); },
    bad(text) { clearTimeout(timer); node.className = 'ev-flash form-error'; node.textContent = text; node.hidden = false; },
    clear() { clearTimeout(timer); node.hidden = true; },
  };
}

/** A button that runs `fn` (a promise), disabled meanwhile; its error goes to `flash`. */
function actionBtn(label, cls, testid, flash, fn) {
  const b = el('button', { type: 'button', class: 'btn ' + cls, testid, text: label });
  b.addEventListener('click', async () => {
    if (b.disabled) return;
    b.disabled = true;
    try {
      await fn();
    } catch (e) {
      flash.bad(errorText(e));
    }
    b.disabled = false;
  });
  return b;
}

export function mountEventOrganise(root, id) {
  const state = { event: null, version: null, error: '', log: null, logAll: false, open: new Set() };
  let disposed = false;
  const page = el('section', { class: 'info-page ev-page ev-organise', testid: 'organise-page', 'data-event': String(id) });
  root.appendChild(page);
  let built = false;
  // the parts drawn again on each change
  const parts = {};

  async function load(force = false) {
    try {
      const data = await ev.get(id);
      if (disposed) return;
      state.error = '';
      if (!force && data.version === state.version && state.event) return;
      state.event = data;
      state.version = data.version;
    } catch (e) {
      if (disposed) return;
      state.error = errorText(e);
      if (!state.event) { paintGate(); return; }
    }
    if (!built) build();
    else paintDynamic();
    loadLog();
  }

  async function loadLog() {
    try {
      const d = await ev.log(id);
      if (disposed) return;
      state.log = d.entries || [];
    } catch (e) {
      state.log = null;
      state.logError = errorText(e);
    }
    paintLog();
  }

  /** Not the organiser nor a referee (or not logged in): a message and the public page's link. */
  function paintGate() {
    page.replaceChildren();
    const e = state.event;
    const text = !e ? (state.error ? t('ev.loadFailed', { error: state.error }) : t('common.loading'))
      : !api.currentAccount() ? t('org.loginFirst') : t('org.notYours', { name: e.organiser || '' });
    page.appendChild(el('div', { class: 'page-message', testid: 'organise-gate' },
      el('p', { text }),
      el('a', { class: 'btn primary', href: eventPath(id), 'data-link': '', testid: 'public-link', text: t('org.publicPage') })));
  }

  // ---------------------------------------------------------------- forms built once

  function registerForm() {
    const flash = flashBox('pair-flash');
    const name = el('input', { type: 'text', maxlength: '60', testid: 'pair-name', placeholder: t('org.pairNamePlaceholder') });
    const p1 = el('input', { type: 'text', maxlength: '40', testid: 'pair-p1', placeholder: t('org.playerPlaceholder'), autocapitalize: 'off' });
    const p2 = el('input', { type: 'text', maxlength: '40', testid: 'pair-p2', placeholder: t('org.playerPlaceholder'), autocapitalize: 'off' });
    const club = el('input', { type: 'text', maxlength: '60', testid: 'pair-club', placeholder: t('org.clubPlaceholder') });
    const submit = el('button', { type: 'submit', class: 'btn primary', testid: 'pair-submit', text: t('org.register') });
    const f = el('form', { class: 'ev-form', novalidate: true, testid: 'pair-form' },
      field(t('org.pairName'), name),
      el('div', { class: 'field-row' }, field(t('org.player1'), p1), field(t('org.player2'), p2)),
      field(t('org.club'), club, t('org.playerHint')),
      el('div', { class: 'ev-form-actions' }, submit), flash.node);
    f.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = { name: name.value.trim(), players: [p1.value.trim(), p2.value.trim()], club: club.value.trim() };
      if (!body.name || !body.players[0] || !body.players[1]) { flash.bad(t('org.pairIncomplete')); return; }
      submit.disabled = true;
      try {
        await ev.addPair(id, body);
        flash.ok(t('org.pairAdded', { name: body.name }));
        name.value = ''; p1.value = ''; p2.value = ''; club.value = '';
        name.focus();
        await load(true);
      } catch (ex) {
        flash.bad(errorText(ex));
      }
      submit.disabled = false;
    });
    return f;
  }

  function importForm() {
    const flash = flashBox('import-flash');
    const text = el('textarea', { class: 'ev-csv', rows: '5', testid: 'import-csv', spellcheck: 'false', placeholder: 'name,player1,player2,club\nTigers,alice,bob,Shanghai' });
    const file = el('input', { type: 'file', accept: '.csv,text/csv,text/plain', testid: 'import-file', class: 'ev-file' });
    file.addEventListener('change', () => {
      const f = file.files && file.files[0];
      if (!f) return;
      const reader = new FileReader();
      reader.onload = () => { text.value = String(reader.result || ''); };
      reader.readAsText(f);
    });
    const submit = el('button', { type: 'submit', class: 'btn', testid: 'import-submit', text: t('org.import') });
    const f = el('form', { class: 'ev-form', novalidate: true, testid: 'import-form' },
      el('p', { class: 'field-hint', text: t('org.importHint') }),
      text,
      el('div', { class: 'ev-form-actions' }, el('label', { class: 'btn small ghost ev-file-label' }, file, el('span', { text: t('org.chooseFile') })), submit),
      flash.node);
    f.addEventListener('submit', async (e) => {
      e.preventDefault();
      const csv = text.value.trim();
      if (!csv) { flash.bad(t('org.csvEmpty')); return; }
      submit.disabled = true;
      try {
        const res = await ev.importPairs(id, csv + '\n');
        flash.ok(t('org.imported', { n: res && res.added != null ? res.added : '?' }));
        text.value = '';
        file.value = '';
        await load(true);
      } catch (ex) {
        flash.bad(errorText(ex));
      }
      submit.disabled = false;
    });
    return f;
  }

  function forbidForm() {
    const flash = flashBox('forbid-flash');
    const a = el('select', { testid: 'forbid-a' });
    const b = el('select', { testid: 'forbid-b' });
    const submit = el('button', { type: 'submit', class: 'btn', testid: 'forbid-submit', text: t('org.forbid') });
    const f = el('form', { class: 'ev-form', novalidate: true, testid: 'forbid-form' },
      el('p', { class: 'field-hint', text: t('org.forbidHint') }),
      el('div', { class: 'field-row' }, field(t('org.pairA'), a), field(t('org.pairB'), b)),
      el('div', { class: 'ev-form-actions' }, submit), flash.node);
    f.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (!a.value || !b.value || a.value === b.value) { flash.bad(t('org.forbidSame')); return; }
      submit.disabled = true;
      try {
        const pa = a.value; const pb = b.value;
        const m = pairMap(state.event);
        await ev.forbid(id, asId(pa), asId(pb));
        flash.ok(t('org.forbidden', { a: pairLabel(m.get(asId(pa))), b: pairLabel(m.get(asId(pb))) }));
        await load(true);
      } catch (ex) {
        flash.bad(errorText(ex));
      }
      submit.disabled = false;
    });
    parts.forbidSelects = [a, b];
    return f;
  }

  /** A pair's id as the server gave it (a number stays a number). */
  function asId(v) {
    const p = (state.event.pairs || []).find((x) => String(x.id) === String(v));
    return p ? p.id : v;
  }

  function refereeForm() {
    const flash = flashBox('referee-flash');
    const name = el('input', { type: 'text', maxlength: '16', testid: 'referee-username', placeholder: t('org.usernamePlaceholder'), autocapitalize: 'off' });
    const submit = el('button', { type: 'submit', class: 'btn', testid: 'referee-submit', text: t('org.addReferee') });
    const f = el('form', { class: 'ev-form ev-inline-form', novalidate: true, testid: 'referee-form' },
      field(t('org.refereeUsername'), name), submit, flash.node);
    f.addEventListener('submit', async (e) => {
      e.preventDefault();
      const u = name.value.trim();
      if (!u) return;
      submit.disabled = true;
      try {
        await ev.addReferee(id, u);
        flash.ok(t('org.refereeAdded', { name: u }));
        name.value = '';
        await load(true);
      } catch (ex) {
        flash.bad(errorText(ex));
      }
      submit.disabled = false;
    });
    return f;
  }

  /** The result form: the round and table, per game the winner and both pairs' final levels, or a forfeit. */
  function resultForm() {
    const flash = flashBox('result-flash');
    const round = el('select', { testid: 'result-round' });
    const table = el('select', { testid: 'result-table' });
    const gamesBox = el('div', { class: 'ev-result-games' });
    const forfeit = segmented('forfeit', [['', t('org.noForfeit')], ['a', t('org.forfeitA')], ['b', t('org.forfeitB')]], '', () => paintGames());
    const submit = el('button', { type: 'submit', class: 'btn primary', testid: 'result-submit', text: t('org.saveResult') });
    // a table with a result already: the new one is a correction, which says why (the event's log keeps it)
    const reason = el('input', { type: 'text', maxlength: '200', testid: 'result-reason' });
    const reasonBox = el('div', { hidden: true }, field(t('org.correctReason'), reason));
    const rows = [];
    const f = el('form', { class: 'panel ev-form ev-result-form', novalidate: true, testid: 'result-form' },
      el('h2', { class: 'panel-title', text: t('org.resultTitle') }),
      el('p', { class: 'field-hint', text: t('org.resultHint') }),
      el('div', { class: 'field-row' }, field(t('pen.round'), round, '', 'ev-narrow'), field(t('pen.table'), table)),
      el('span', { class: 'field-label', text: t('org.forfeit') }), forfeit.node,
      gamesBox, reasonBox,
      el('div', { class: 'ev-form-actions' }, submit), flash.node);

    function pairing() {
      const e = state.event;
      const r = e && (e.rounds || []).find((x) => String(x.number) === round.value);
      return { r, p: r && (r.pairings || []).find((x) => String(x.table) === table.value) };
    }

    function levelSel(testid) {
      const s = el('select', { class: 'ev-level', testid });
      for (const l of [...LEVELS, 'flag']) s.appendChild(el('option', { value: l, text: levelText(l) }));
      return s;
    }
    function circleSel(testid) {
      const s = el('select', { class: 'ev-circle', testid, 'aria-label': t('ref.circle') });
      for (let c = 1; c <= 5; c++) s.appendChild(el('option', { value: String(c), text: t('org.circleN', { n: c }) }));
      return s;
    }

    function fillRounds() {
      const e = state.event;
      const keep = round.value;
      round.replaceChildren();
      const rs = (e.rounds || []).filter((r) => r.status !== 'drawn');
      for (const r of rs) round.appendChild(el('option', { value: String(r.number), text: roundLabel(r) }));
      if (keep && rs.some((r) => String(r.number) === keep)) round.value = keep;
      else if (rs.length) round.value = String(rs[rs.length - 1].number);
      fillTables();
    }

    function fillTables() {
      const e = state.event;
      const keep = table.value;
      table.replaceChildren();
      const r = (e.rounds || []).find((x) => String(x.number) === round.value);
      const m = pairMap(e);
      for (const p of (r && r.pairings) || []) {
        if (p.b == null) continue;
        const done = p.result ? ' ✓' : '';
        table.appendChild(el('option', { value: String(p.table), text: `${t('ev.tableN', { n: p.table })} · ${pairLabel(m.get(p.a))} – ${pairLabel(m.get(p.b))}${done}` }));
      }
      if (!table.options.length) table.appendChild(el('option', { value: '', text: t('org.noTables') }));
      if (keep && [...table.options].some((o) => o.value === keep)) table.value = keep;
      // the games typed so far stay while the same tie is chosen (the event changing meanwhile draws nothing again)
      const key = `${round.value}/${table.value}/${r ? r.best_of : ''}`;
      if (key !== lastKey) buildGames();
    }
    let lastKey = '';

    function buildGames() {
      const { r, p } = pairing();
      lastKey = `${round.value}/${table.value}/${r ? r.best_of : ''}`;
      const n = r && r.best_of === 3 ? 3 : 1;
      const m = pairMap(state.event);
      const an = p ? `A · ${pairLabel(m.get(p.a))}` : 'A';
      const bn = p ? `B · ${pairLabel(m.get(p.b))}` : 'B';
      gamesBox.replaceChildren();
      rows.length = 0;
      for (let i = 0; i < n; i++) {
        const winner = el('select', { testid: `result-winner-${i}` });
        winner.append(el('option', { value: '', text: i === 0 ? t('org.choose') : t('org.notPlayed') }), el('option', { value: 'a', text: an }), el('option', { value: 'b', text: bn }));
        const al = levelSel(`result-a-level-${i}`); const ac = circleSel(`result-a-circle-${i}`);
        const bl = levelSel(`result-b-level-${i}`); const bc = circleSel(`result-b-circle-${i}`);
        const old = p && p.games && p.games[i];
        if (old) {
          winner.value = old.winner || '';
          if (old.a) { al.value = old.a.level; ac.value = String(old.a.circle || 1); }
          if (old.b) { bl.value = old.b.level; bc.value = String(old.b.circle || 1); }
        }
        rows.push({ winner, al, ac, bl, bc });
        gamesBox.appendChild(el('fieldset', { class: 'ev-game-row', testid: `result-game-${i}` },
          el('legend', { text: t('ev.gameN', { n: i + 1 }) }),
          field(t('org.winner'), winner),
          el('div', { class: 'ev-levels' },
            el('div', { class: 'ev-level-pair' }, el('span', { class: 'ev-level-who', text: an }), al, ac),
            el('div', { class: 'ev-level-pair' }, el('span', { class: 'ev-level-who', text: bn }), bl, bc))));
      }
      paintGames();
    }

    function paintGames() {
      gamesBox.hidden = !!forfeit.get();
      const { p } = pairing();
      reasonBox.hidden = !(p && p.result);
    }

    round.addEventListener('change', fillTables);
    table.addEventListener('change', buildGames);

    f.addEventListener('submit', async (e) => {
      e.preventDefault();
      const { r, p } = pairing();
      if (!r || !p) { flash.bad(t('org.chooseTable')); return; }
      const body = { round: r.number, table: p.table, games: [], forfeit: forfeit.get() || null };
      if (!body.forfeit) {
        for (const x of rows) {
          if (!x.winner.value) continue;
          body.games.push({ winner: x.winner.value, a: { circle: Number(x.ac.value), level: x.al.value }, b: { circle: Number(x.bc.value), level: x.bl.value } });
        }
        if (!body.games.length) { flash.bad(t('org.noGames')); return; }
      }
      const correcting = !!p.result;
      if (correcting && !reason.value.trim()) { flash.bad(t('org.reasonNeeded')); return; }
      submit.disabled = true;
      try {
        if (correcting) await ev.correct(id, { ...body, reason: reason.value.trim() });
        else await ev.result(id, body);
        reason.value = '';
        flash.ok(t(correcting ? 'org.resultCorrected' : 'org.resultSaved', { n: p.table }));
        await load(true);
      } catch (ex) {
        flash.bad(errorText(ex));
      }
      submit.disabled = false;
    });

    return {
      node: f,
      refresh() { fillRounds(); },
      setTarget(rn, tn) {
        round.value = String(rn);
        fillTables();
        table.value = String(tn);
        buildGames();
        forfeit.set('');
        paintGames();
      },
    };
  }

  // ---------------------------------------------------------------- the page

  function build() {
    const e = state.event;
    const you = e.you || {};
    if (!you.organiser && !you.referee) { paintGate(); return; }
    built = true;
    page.replaceChildren();
    parts.head = el('div');
    page.appendChild(parts.head);
    parts.error = el('p', { class: 'form-error', testid: 'event-error', hidden: true });
    page.appendChild(parts.error);

    const grid = el('div', { class: 'ev-org-grid' });
    const left = el('div', { class: 'ev-col' });
    const right = el('div', { class: 'ev-col' });
    grid.append(left, right);
    page.appendChild(grid);

    // rounds
    parts.roundsFlash = flashBox('rounds-flash');
    parts.rounds = el('div', { class: 'ev-rounds', testid: 'org-rounds' });
    left.appendChild(el('section', { class: 'panel ev-round-panel' },
      el('div', { class: 'ev-round-head' }, el('h2', { class: 'panel-title', text: t('org.rounds') })),
      parts.roundsFlash.node, parts.rounds));

    parts.result = resultForm();
    left.appendChild(parts.result.node);
    parts.penalty = penaltyForm({ eventId: id, event: e, onDone: () => load(true) });
    left.appendChild(parts.penalty.node);
    parts.penalties = el('div', { class: 'ev-penalty-list' });
    parts.penaltiesPanel = el('section', { class: 'panel' }, el('h2', { class: 'panel-title', text: t('org.penalties') }), parts.penalties);
    left.appendChild(parts.penaltiesPanel);

    // pairs
    parts.pairsFlash = flashBox('pairs-flash');
    parts.pairs = el('div', { class: 'ev-pair-list', testid: 'org-pairs' });
    parts.pairsCount = el('span', { class: 'tag' });
    right.appendChild(el('section', { class: 'panel ev-pairs-panel' },
      el('div', { class: 'ev-round-head' }, el('h2', { class: 'panel-title', text: t('ev.pairsTitle') }), parts.pairsCount),
      parts.pairsFlash.node, parts.pairs,
      // registration and pairing are the organiser's; a referee enters results and penalties
      you.organiser ? [
        parts.registerFold = el('details', { class: 'ev-fold', open: (e.pairs || []).length === 0 }, el('summary', { text: t('org.registerTitle') }), registerForm()),
        parts.importFold = el('details', { class: 'ev-fold', open: (e.pairs || []).length === 0 }, el('summary', { text: t('org.importTitle') }), importForm()),
        el('details', { class: 'ev-fold' }, el('summary', { text: t('org.forbidTitle') }), forbidForm())] : null));

    // referees
    parts.referees = el('div', { class: 'ev-referees' });
    right.appendChild(el('section', { class: 'panel' },
      el('h2', { class: 'panel-title', text: t('org.referees') }), parts.referees,
      you.organiser ? refereeForm() : null));

    // standings and exports
    parts.standings = el('div');
    parts.exports = el('div', { class: 'ev-exports' });
    right.appendChild(el('section', { class: 'panel' },
      el('h2', { class: 'panel-title', text: t('ev.standings') }), parts.standings, parts.exports));

    // log
    parts.log = el('div', { class: 'ev-log', testid: 'event-log' });
    right.appendChild(el('section', { class: 'panel' }, el('h2', { class: 'panel-title', text: t('org.log') }), parts.log));

    paintDynamic();
  }

  function roundActions(r) {
    const flash = parts.roundsFlash;
    const box = el('div', { class: 'ev-round-actions' });
    const op = (name, cls, key, done) => actionBtn(t(key), cls, `round-${name}`, flash, async () => {
      flash.clear();
      await ev.roundOp(id, r.number, name);
      flash.ok(t(done, { round: roundLabel(r) }));
      await load(true);
    });
    const org = !!(state.event.you || {}).organiser;
    if (org && r.status === 'drawn') box.appendChild(op('publish', 'primary', 'org.publish', 'org.published'));
    if (org && r.status === 'published') box.appendChild(op('start', 'primary', 'org.start', 'org.started'));
    if (org && (r.status === 'drawn' || r.status === 'published')) box.appendChild(op('undo', 'ghost', 'org.undo', 'org.undone'));
    box.appendChild(el('a', { class: 'btn small ghost', href: ev.pairingsCsv(id, r.number), download: '', text: t('org.pairingsCsv') }));
    return box;
  }

  function pairingActions(r, p) {
    if (p.b == null || r.status === 'drawn') return null;
    const box = el('span', { class: 'ev-pairing-actions' });
    box.append(
      el('button', { type: 'button', class: 'btn small', testid: 'enter-result', text: p.result ? t('org.editResult') : t('org.enterResult'),
        onclick: () => { parts.result.setTarget(r.number, p.table); parts.result.node.scrollIntoView({ behavior: 'smooth', block: 'start' }); } }),
      el('button', { type: 'button', class: 'btn small', testid: 'give-penalty', text: t('org.penalty'),
        onclick: () => { parts.penalty.setTarget(r.number, p.table, 'a'); parts.penalty.node.scrollIntoView({ behavior: 'smooth', block: 'start' }); } }),
      el('a', { class: 'btn small ghost', href: refereePath({ event: id, round: r.number, table: p.table }), 'data-link': '', text: t('org.refereeTool') }));
    return box;
  }

  function paintRounds() {
    const e = state.event;
    const rounds = e.rounds || [];
    const last = rounds[rounds.length - 1];
    const box = parts.rounds;
    box.replaceChildren();
    const flash = parts.roundsFlash;
    if ((e.you || {}).organiser && e.status !== 'finished' && (!last || last.status === 'finished')) {
      const active = (e.pairs || []).filter((p) => !p.withdrawn && !p.out).length;
      box.appendChild(el('div', { class: 'ev-next' },
        el('p', { class: 'muted', text: rounds.length ? t('org.nextHint', { n: active }) : t('org.firstHint', { n: active }) }),
        actionBtn(t('org.pairNext'), 'primary big', 'pair-next', flash, async () => {
          flash.clear();
          const res = await ev.pairRound(id);
          flash.ok(t('org.paired', { n: res && res.round != null ? res.round : rounds.length + 1 }));
          await load(true);
        })));
    }
    if (!rounds.length) {
      if (!box.childNodes.length) box.appendChild(el('p', { class: 'muted', text: t('ev.noRound') }));
      return;
    }
    const pairs = pairMap(e);
    rounds.slice().reverse().forEach((r, i) => {
      const content = el('div', { class: 'ev-round', 'data-round': String(r.number), testid: 'org-round' });
      if (r.status === 'drawn') content.appendChild(el('p', { class: 'ev-draft-note', text: t('org.draftNote') }));
      content.appendChild(roundActions(r));
      const list = el('div', { class: 'ev-pairings' });
      for (const p of r.pairings || []) list.appendChild(pairingCard(e, r, p, { pairs, sessions: severalSessions(r), actions: pairingActions(r, p) }));
      content.appendChild(list);
      const key = 'r' + r.number;
      const byDefault = i === 0;
      const open = byDefault ? !state.open.has('!' + key) : state.open.has(key);
      const d = el('details', { class: 'ev-fold ev-round-fold', open }, el('summary', {}, el('span', { class: 'ev-sum' }, el('b', { text: roundLabel(r) }), roundMeta(r))), content);
      d.addEventListener('toggle', () => remember(state.open, key, d.open, byDefault));
      box.appendChild(d);
    });
  }

  function paintPairs() {
    const e = state.event;
    const flash = parts.pairsFlash;
    parts.pairs.replaceChildren();
    const pairs = e.pairs || [];
    parts.pairsCount.textContent = String(pairs.filter((p) => !p.withdrawn).length);
    // pairs are registered before the first round is paired (the server refuses later ones)
    for (const fold of [parts.registerFold, parts.importFold]) if (fold) fold.hidden = (e.rounds || []).length > 0;
    if (!pairs.length) parts.pairs.appendChild(el('p', { class: 'muted', testid: 'no-pairs', text: t('ev.noPairs') }));
    for (const p of byCode(pairs)) {
      const row = el('div', { class: 'ev-pair-row', testid: 'org-pair' }, pairBlock(p, { out: true }));
      if (!p.withdrawn && p.out == null && e.status !== 'finished' && (e.you || {}).organiser) {
        row.appendChild(actionBtn(t('org.withdraw'), 'small ghost', 'withdraw', flash, async () => {
          if (!window.confirm(t('org.withdrawConfirm', { name: p.name }))) return;
          await ev.withdraw(id, p.id);
          flash.ok(t('org.withdrawn', { name: p.name }));
          await load(true);
        }));
      }
      parts.pairs.appendChild(row);
    }
    // the forbid form's choices
    for (const s of parts.forbidSelects || []) {
      const keep = s.value;
      s.replaceChildren(el('option', { value: '', text: t('org.choose') }));
      for (const p of pairs.filter((x) => !x.withdrawn)) s.appendChild(el('option', { value: String(p.id), text: pairLabel(p) }));
      s.value = keep;
    }
  }

  function paintPenalties() {
    const e = state.event;
    const m = pairMap(e);
    parts.penalties.replaceChildren();
    const list = e.penalties || [];
    if (!list.length) { parts.penalties.appendChild(el('p', { class: 'muted', text: t('org.noPenalties') })); return; }
    for (const x of list.slice().reverse()) {
      const r = (e.rounds || []).find((y) => y.number === x.round);
      const who = m.has(x.pair) ? pairLabel(m.get(x.pair)) : String(x.pair ?? '');
      const kind = (state.schedule || []).find((k) => k.key === x.offence);
      const offence = kind ? (getLang() === 'zh' ? kind.zh : kind.en) : x.offence || '';
      const bits = [];
      if (x.points) bits.push(t('org.penPoints', { n: x.points }));
      if (x.levels) bits.push(t('org.penLevels', { n: x.levels }));
      if (x.warning) bits.push(t('pen.warningShort'));
      if (x.game_lost) bits.push(t('pen.gameLost'));
      parts.penalties.appendChild(el('div', { class: 'ev-pen-row', testid: 'penalty-row' },
        el('div', {}, el('b', { text: who }), el('span', { class: 'muted', text: ` · ${t('ev.tableN', { n: x.table })} · ${r ? roundLabel(r) : x.round}` })),
        el('div', {}, el('span', { class: 'tag flag-tag', text: offence }), ' ', el('span', { text: bits.join(t('common.noteSep')) })),
        x.note ? el('div', { class: 'muted', text: x.note }) : null,
        el('div', { class: 'muted small-text', text: [x.by, fmtTime(x.at)].filter(Boolean).join(' · ') })));
    }
  }

  /** A log entry's data in words: the pair's name, the round's label, the table (its names resolved). */
  function logDetail(x) {
    const d = x.data && typeof x.data === 'object' ? x.data : {};
    const e = state.event;
    const m = e ? pairMap(e) : new Map();
    const pname = (id) => (m.has(id) ? pairLabel(m.get(id)) : String(id ?? ''));
    const rname = (n) => { const r = e && (e.rounds || []).find((y) => y.number === n); return r ? roundLabel(r) : t('ev.roundN', { n }); };
    const sep = t('common.noteSep');
    switch (x.op) {
      case 'create': return d.name ? String(d.name) : '';
      case 'add_pair': {
        const players = (d.players || []).map((p) => (p && typeof p === 'object' ? p.name : String(p))).join(' & ');
        return [d.name, players, d.club].filter(Boolean).join(' · ');
      }
      case 'withdraw': return pname(d.pair);
      case 'forbid': return `${pname(d.a)} ✕ ${pname(d.b)}`;
      case 'referee': return String(d.username || '');
      case 'pair': return [d.label || rname(d.round), Array.isArray(d.pairings) ? t('org.logTables', { n: d.pairings.length }) : ''].filter(Boolean).join(' · ');
      case 'publish': case 'start': case 'undo': return rname(d.round);
      case 'game': case 'result': case 'correct': {
        const bits = [rname(d.round), t('ev.tableN', { n: d.table })];
        if (d.forfeit) bits.push(t('org.logForfeit', { side: String(d.forfeit).toUpperCase() }));
        else if (Array.isArray(d.games)) bits.push(d.games.map((g) => `${String(g.winner || '').toUpperCase()} ${levelText(g.a && g.a.level)}:${levelText(g.b && g.b.level)}`).join(', '));
        else if (d.winner) bits.push(`${String(d.winner).toUpperCase()} ${levelText(d.a && d.a.level)}:${levelText(d.b && d.b.level)}`);
        if (d.reason) bits.push(`“${String(d.reason)}”`);
        return bits.join(' · ');
      }
      case 'penalty': {
        const kind = (state.schedule || []).find((k) => k.key === d.offence);
        const bits = [rname(d.round), t('ev.tableN', { n: d.table }), String(d.pair || '').toUpperCase(), kind ? (getLang() === 'zh' ? kind.zh : kind.en) : d.offence];
        if (d.points) bits.push(t('org.penPoints', { n: d.points }));
        if (d.levels) bits.push(t('org.penLevels', { n: d.levels }));
        if (d.warning) bits.push(t('pen.warningShort'));
        if (d.game_lost) bits.push(t('pen.gameLost'));
        if (d.note) bits.push(String(d.note));
        return bits.filter(Boolean).join(' · ');
      }
      default:
        return Object.entries(d).filter(([, v]) => v === null || typeof v !== 'object').map(([k, v]) => `${k}: ${v}`).join(sep);
    }
  }

  function paintLog() {
    if (!parts.log) return;
    parts.log.replaceChildren();
    if (state.log === null) { parts.log.appendChild(el('p', { class: 'muted', text: state.logError ? t('ev.loadFailed', { error: state.logError }) : t('common.loading') })); return; }
    if (!state.log.length) { parts.log.appendChild(el('p', { class: 'muted', text: t('org.logEmpty') })); return; }
    const entries = state.log.slice().reverse();
    const shown = state.logAll ? entries : entries.slice(0, 12);
    const list = el('ol', { class: 'ev-log-list' });
    for (const x of shown) {
      const data = logDetail(x);
      list.appendChild(el('li', { class: 'ev-log-entry', testid: 'log-entry' },
        el('span', { class: 'ev-log-when muted', text: fmtTime(x.at) }),
        el('span', { class: 'ev-log-who', text: x.by || '—' }),
        el('span', { class: 'ev-log-op', text: has(`org.op.${x.op}`) ? t(`org.op.${x.op}`) : String(x.op || '') }),
        data ? el('span', { class: 'ev-log-data', text: data.length > 200 ? data.slice(0, 197) + '…' : data }) : null));
    }
    parts.log.appendChild(list);
    if (entries.length > 12) {
      parts.log.appendChild(el('button', { type: 'button', class: 'link-btn', text: state.logAll ? t('org.logLess') : t('org.logAll', { n: entries.length }),
        onclick: () => { state.logAll = !state.logAll; paintLog(); } }));
    }
  }

  function paintDynamic() {
    if (disposed || !built) return;
    const e = state.event;
    document.title = `${t('org.title')} · ${e.name} · 炒地皮`;
    const y = window.scrollY;
    parts.head.replaceChildren(eventHead(e, el('div', { class: 'ev-head-actions' },
      el('a', { class: 'btn small', href: eventPath(id), 'data-link': '', testid: 'public-link', text: t('org.publicPage') }),
      el('a', { class: 'btn small ghost', href: refereePath({ event: id }), 'data-link': '', testid: 'referee-tool-link', text: t('org.refereeTool') }))));
    parts.error.textContent = state.error;
    parts.error.hidden = !state.error;
    paintRounds();
    paintPairs();
    // results and penalties once a round has started
    const started = (e.rounds || []).some((r) => r.status === 'playing' || r.status === 'finished');
    parts.result.node.hidden = !started;
    parts.penalty.node.hidden = !started;
    parts.penaltiesPanel.hidden = !started;
    parts.result.refresh();
    parts.penalty.setEvent(e);
    paintPenalties();
    parts.referees.replaceChildren(el('div', { class: 'ev-ref-chips' },
      el('span', { class: 'tag me-tag', text: t('org.organiserIs', { name: e.organiser || '' }) }),
      ...(e.referees || []).map((r) => el('span', { class: 'tag', text: typeof r === 'string' ? r : r.username || r.name || '' }))));
    parts.standings.replaceChildren(standingsEl(e));
    parts.exports.replaceChildren(
      el('a', { class: 'btn small ghost', href: ev.standingsCsv(id), download: '', testid: 'standings-csv', text: t('org.standingsCsv') }));
    window.scrollTo(0, y);
  }

  paintGate();
  load(true);
  ev.schedule().then((d) => { state.schedule = d.schedule || []; if (built) paintPenalties(); }).catch(() => {});
  const stop = every(3000, () => load());
  const offLang = onLangChange(() => { if (state.event) { built = false; build(); paintLog(); } });
  return () => { disposed = true; stop(); offLang(); };
}
