// The replay viewer's settlement: a hand's result (p against the threshold, who goes up, the sums, the levels
// before and after, credits, the kitty, the engine's notes) and the next hand's button.
// Part of the replay viewer (replay.js): `makeResult(ctx)` is given the viewer's state and helpers and returns its drawing functions.
import { t } from './i18n.js';
import { el } from './dom.js';
import { cardsRow, progressText, sharedOr } from './replay-common.js';
import { notesText } from './phrases.js';

export function makeResult(ctx) {
  const {
    gotoHand,
    hand,
    next,
    playerName,
    state,
    stopPlay,
    teamName,
    teamOf,
    ui,
    wrap,
  } = ctx;

  function renderResult(snap) {
    const res = snap.result;
    if (!res || typeof res !== 'object') {
      if (snap.f.step === 'redeal') {
        ui.result.replaceChildren(el('section', { class: 'r-panel r-result r-result-redeal', testid: 'replay-result' },
          el('h3', { class: 'r-panel-title', text: t('replay.step.redeal') }),
          el('p', { text: t('replay.redealText') }),
          nextHandButton()));
      } else {
        ui.result.replaceChildren();
      }
      return;
    }
    const dealerTeam = teamOf(snap.dealer);
    const scoringTeam = snap.sides ? teamOf(snap.sides.indexOf('scoring')) : null;
    const gainerTeam = res.gainer === 'dealer' ? dealerTeam : res.gainer === 'scoring' ? scoringTeam : null;
    const box = el('section', { class: 'r-panel r-result', testid: 'replay-result' });
    box.appendChild(el('h3', { class: 'r-panel-title' }, t('replay.resultTitle', { n: snap.h.number })));

    // the headline: p against the threshold, and who goes up
    const reached = res.points >= res.threshold;
    box.appendChild(el('div', { class: 'r-res-score' + (reached ? ' r-reached' : '') },
      el('span', { class: 'r-res-p', text: String(res.points) }),
      el('span', { class: 'r-res-vs', text: reached ? '≥' : '<' }),
      el('span', { class: 'r-res-th', text: String(res.threshold) }),
      el('span', { class: 'r-res-verdict', text: res.table === 'scoring' ? t('replay.tableScoring') : t('replay.tableDealer') })));
    if (gainerTeam !== null && res.nominal_gain !== undefined) {
      box.appendChild(el('p', { class: 'r-res-gain', text: t('replay.gain', { team: teamName(gainerTeam), side: t('replay.side.' + res.gainer), n: res.nominal_gain }) }));
    }
    if (res.special) box.appendChild(el('p', { class: 'r-res-special', text: sharedOr('special.' + res.special, t('replay.special', { name: res.special })) }));
    if (res.game_winner) {
      const wt = res.game_winner === 'dealer' ? dealerTeam : scoringTeam;
      box.appendChild(el('p', { class: 'r-res-gamewin', text: t('replay.gameWon', { team: teamName(wt) }) }));
    }

    // the sums
    const rows = el('dl', { class: 'r-res-sums' });
    const row = (k, v) => rows.append(el('dt', { text: k }), el('dd', {}, v));
    row(t('replay.trickPoints'), String(res.trick_points));
    if (res.kou_di) row(t('replay.kouDi'), t('replay.kouDiValue', { points: res.kitty_points, m: res.multiplier, n: res.kou_di }));
    else row(t('replay.kouDi'), t('replay.kouDiNone'));
    for (const [what, n] of res.adjustments || []) row(what, (n > 0 ? '+' : '') + n);
    box.appendChild(rows);

    // the levels before and after
    if (res.before && res.after) {
      const lv = el('div', { class: 'r-res-levels' });
      for (const [sideName, team] of [['dealer', dealerTeam], ['scoring', scoringTeam]]) {
        const b = res.before[sideName];
        const a = res.after[sideName];
        const changed = b && a && (b.level !== a.level || b.circle !== a.circle);
        lv.appendChild(el('div', { class: 'r-res-level' + (changed ? ' r-changed' : '') },
          el('span', { class: `r-team-dot r-dot-${team}`, 'aria-hidden': 'true' }),
          el('span', { class: 'r-res-level-who', text: `${teamName(team)} (${t('replay.side.' + sideName)})` }),
          el('span', { class: 'r-res-level-val', text: `${progressText(b)} → ${progressText(a)}` })));
      }
      box.appendChild(lv);
    }
    if (res.credits && typeof res.credits === 'object') {
      box.appendChild(el('p', { class: 'r-muted', text: t('replay.creditsChange', { d: fmtSigned(res.credits.dealer), s: fmtSigned(res.credits.scoring) }) }));
    }
    if (res.escapes && res.escapes.length) {
      box.appendChild(el('p', { class: 'r-res-special', text: t('replay.escapes', { list: res.escapes.map((e) => (typeof e === 'object' ? JSON.stringify(e) : String(e))).join(', ') }) }));
    }
    // the kitty
    if (snap.kitty && snap.kitty.length) {
      box.appendChild(el('div', { class: 'r-res-kitty' },
        el('span', { class: 'r-hud-label', text: t('replay.kitty') }),
        cardsRow(snap.kitty, snap.facts, 'r-cards r-tiny-cards r-wrap')));
    }
    // the engine's notes (the settled event's), in the reader's language
    const settled = ((hand() && hand().log) || []).find((e) => e.e === 'settled');
    const words = notesText(res.notes ? res : settled, { seatName: (n) => playerName(n) });
    if (words.length) {
      const notes = el('details', { class: 'r-res-notes' }, el('summary', { text: t('replay.notes') }));
      const ul = el('ul', { testid: 'replay-notes' });
      for (const n of words) ul.appendChild(el('li', { text: n }));
      notes.appendChild(ul);
      box.appendChild(notes);
    }
    box.appendChild(nextHandButton());
    ui.result.replaceChildren(box);
  }

  function fmtSigned(n) {
    return n > 0 ? `+${n}` : String(n);
  }

  function nextHandButton() {
    const last = state.hi + 1 >= state.data.hands.length;
    return el('div', { class: 'r-row-end' },
      last
        ? el('span', { class: 'r-muted', text: t('replay.gameEnd') })
        : el('button', { type: 'button', class: 'r-btn r-primary', testid: 'replay-next-hand', text: t('replay.nextHand'), onclick: () => { stopPlay(); gotoHand(state.hi + 1); } }));
  }

  return { renderResult, fmtSigned, nextHandButton };
}
