// The table page's settlement: a hand's result (points against the threshold, the sums, both sides' levels,
// credits, the engine's notes), the game's end and the ready button.
// Part of the table page (table.js): `makeSettlement(ctx)` is given the page's state and helpers and returns its drawing functions.
import { t } from './i18n.js';
import { miniCards } from './cards.js';
import { el } from './dom.js';
import { levelText } from './table-common.js';
import { notesText } from './phrases.js';

const SPECIAL_RULE = { shangtian_ftk: '§11.5', shangtian_red5: '§11.5', jack: '§11.5' };

export function makeSettlement(ctx) {
  const {
    S,
    doAgain,
    doReady,
    mySeat,
    otherTeam,
    render,
    seatName,
    team,
    teamNames,
    phraseCtx,
    threshold,
    tableId,
  } = ctx;

  function sideLine(label, names, before, after, mine) {
    const fmt = (x) => (x ? levelText(x.level) + (S.rulesFull && S.rulesFull.circles > 1 ? ' ' + t('info.circle', { n: x.circle }) : '') : '—');
    const changed = before && after && (before.level !== after.level || before.circle !== after.circle);
    return el('div', { class: 'settle-side' + (mine ? ' mine' : '') },
      el('span', { class: 'settle-side-name' }, el('strong', { text: label }), el('small', { class: 'muted', text: ' ' + names + (mine ? ' · ' + t('info.us') : '') })),
      el('span', { class: 'settle-levels' + (changed ? ' changed' : '') }, fmt(before), ' → ', el('strong', { text: fmt(after) })));
  }

  function settlementPanel() {
    const v = S.view;
    const g = S.game;
    const res = v.result || null;
    const me = mySeat();
    const dt = v.dealer !== null && v.dealer !== undefined ? team(v.dealer) : team(0);
    const st = otherTeam(dt);
    const panel = el('div', { class: 'settlement' + (S.settleMin ? ' minimized' : ''), testid: 'settlement', 'data-hand': String(S.hand), role: 'dialog', 'aria-label': t('settle.title', { hand: S.hand }) });
    const head = el('div', { class: 'settle-head' },
      el('h2', { text: g && g.over ? t('settle.titleLast', { hand: g.hands }) : t('settle.title', { hand: g ? g.hands : S.hand }) }),
      el('button', { type: 'button', class: 'btn small ghost', text: S.settleMin ? t('settle.expand') : t('settle.minimize'), onclick: () => { S.settleMin = !S.settleMin; render(); } }));
    panel.appendChild(head);
    if (S.settleMin) {
      panel.appendChild(readyRow());
      return panel;
    }
    // game over
    if (g && g.over) {
      const watching = me === null;
      const won = !watching && g.winner !== null && g.winner === team(me);
      const ours = watching ? team(0) : team(me); // a spectator: seat 0's side first, named by its players
      const levelsText = watching
        ? t('gameover.finalLevelsWatch', { a: teamNames(ours), la: levelText(g.levels[ours].level), b: teamNames(otherTeam(ours)), lb: levelText(g.levels[otherTeam(ours)].level) })
        : t('gameover.finalLevels', { us: levelText(g.levels[ours].level), them: levelText(g.levels[otherTeam(ours)].level) });
      const go = el('div', { class: 'game-over ' + (won ? 'won' : 'lost'), testid: 'game-over' },
        el('div', { class: 'go-title', text: g.winner === null || watching ? t('gameover.title') : won ? t('gameover.youWin') : t('gameover.theyWin') }),
        el('div', { class: 'go-sub', text: g.winner !== null ? t('gameover.winner', { names: teamNames(g.winner) }) : '' }),
        el('div', { class: 'go-levels' }, el('span', { text: levelsText })),
        g.credits && !watching ? el('div', { class: 'go-credits', text: t('gameover.credits', { us: g.credits[ours], them: g.credits[otherTeam(ours)] }) }) : null,
        el('div', { class: 'go-actions' },
          watching ? null : el('button', { type: 'button', class: 'btn primary big', testid: 'again-button', text: t('gameover.again'), onclick: doAgain }),
          el('a', { class: 'btn big', testid: 'replay-link', href: `/replay/${tableId}/${g.number}`, 'data-link': '', text: t('gameover.replay') }),
          el('a', { class: 'btn ghost', href: '/', 'data-link': '', text: t('nav.backToLobby') })));
      panel.appendChild(go);
    }

    const body = el('div', { class: 'settle-body' });
    const p = res ? res.points : v.points;
    const thr = res ? res.threshold : threshold();
    // the headline
    // the headline: who won the game, a flag hand's outcome, a special ending, or the level table's verdict
    const sideWords = (side) => t(`side.${side}`) + '（' + teamNames(side === 'dealer' ? dt : st) + '）';
    const flagHand = !!(res && res.before && res.before.dealer && res.before.dealer.level === 'flag');
    let headline;
    if (res && res.game_winner) headline = t('settle.gameWinner', { side: sideWords(res.game_winner) });
    else if (res && flagHand) headline = res.table === 'dealer' ? t('settle.flagKept') : t('settle.flagFailed', { side: sideWords(res.table) });
    else if (res && res.special) headline = t(`special.${res.special}`) + ' (' + t('settle.ruleRef', { ref: SPECIAL_RULE[res.special] || '§11.5' }) + ')';
    else if (res) headline = res.table === 'scoring' ? t('settle.scoringTakes', { n: res.nominal_gain }) : t('settle.dealerKeeps', { n: res.nominal_gain });
    body.appendChild(el('div', { class: 'settle-points' },
      el('div', { class: 'sp-label', text: t('settle.scoringPoints', { names: teamNames(st) }) }),
      el('div', { class: 'sp-value' }, el('span', { class: 'sp-num' + (p >= thr ? ' reached' : ''), testid: 'settle-points', text: String(p) }), el('span', { class: 'sp-thr', text: (p >= thr ? ' ≥ ' : ' < ') + thr })),
      headline ? el('div', { class: 'sp-headline' + (res && res.special ? ' special' : ''), testid: 'settle-headline', text: headline }) : null));

    // the breakdown
    const rows = el('div', { class: 'settle-rows' });
    const row = (label, value, extra) => el('div', { class: 'settle-row' }, el('span', { class: 'sr-label' }, label), el('span', { class: 'sr-value' }, value), extra || null);
    if (res) {
      rows.appendChild(row(t('settle.trickPoints'), String(res.trick_points)));
      if (res.kou_di) rows.appendChild(row(t('settle.kouDi'), t('settle.kouDiValue', { pts: res.kitty_points, mult: res.multiplier, total: res.kou_di })));
      else rows.appendChild(row(t('settle.kittyPoints'), t('settle.kittyKept', { pts: res.kitty_points })));
    }
    const adjEvents = S.events.filter((e) => ['throw_failed', 'fry_failed', 'forced_red5', 'kept_red5', 'penalty'].includes(e.e) && e.points);
    // each adjustment as it touches this player's side: the points go to the scoring side's p
    const signed = (n) => (n > 0 ? '+' : n < 0 ? '−' : '') + Math.abs(n);
    const forUs = (pts) => (me === null ? signed(pts) : t('settle.usDelta', { n: signed(team(me) === st ? pts : -pts) }));
    if (adjEvents.length) {
      for (const e of adjEvents) {
        const who = e.e === 'penalty' ? { team: teamNames(e.team) } : { name: seatName(e.p) }; // (a referee's penalty: a team's)
        const line = row(t(`adj.${e.e}`, who), forUs(e.points));
        line.dataset.adjust = e.e;
        rows.appendChild(line);
      }
    } else if (res && res.adjustments && res.adjustments.length) {
      for (const [label, delta] of res.adjustments) rows.appendChild(row(label, (delta > 0 ? '+' : '') + delta));
    }
    if (v.kitty) rows.appendChild(row(t('settle.kitty'), miniCards(v.kitty)));
    body.appendChild(rows);

    // levels
    const lv = el('div', { class: 'settle-levels-box' });
    const before = res ? res.before : null;
    const after = res ? res.after : null;
    const beforeLv = S.levelsAtStart;
    lv.appendChild(sideLine(t('side.dealer'), teamNames(dt), before ? before.dealer : beforeLv && beforeLv[dt], after ? after.dealer : g && g.levels[dt], team(me) === dt));
    lv.appendChild(sideLine(t('side.scoring'), teamNames(st), before ? before.scoring : beforeLv && beforeLv[st], after ? after.scoring : g && g.levels[st], team(me) === st));
    body.appendChild(lv);

    if (res && res.credits) {
      const c = res.credits;
      body.appendChild(el('div', { class: 'settle-row credits-row' },
        el('span', { class: 'sr-label', text: t('info.credits') }),
        el('span', { class: 'sr-value', text: t('settle.creditsChange', { dealer: (c.dealer > 0 ? '+' : '') + c.dealer, scoring: (c.scoring > 0 ? '+' : '') + c.scoring }) })));
    }
    if (res && res.escapes && res.escapes.length) {
      for (const e of res.escapes) body.appendChild(el('div', { class: 'settle-row escape-row', text: t('settle.escape', { name: seatName(e.player), n: e.penalty }) }));
    }
    if (res && !(g && g.over)) {
      const nextDealer = S.game ? S.game.next_dealer : null; // the server's game: its dealer rotation (RULES §2)
      body.appendChild(el('div', { class: 'settle-next' },
        el('span', { text: t('settle.nextDealer', { name: seatName(nextDealer), side: res.table === 'dealer' ? t('side.dealer') : t('side.scoring') }) }),
        res.next_hand === 'flag' ? el('span', { class: 'tag flag-tag', text: t('settle.nextFlag') }) : null));
    }
    // the engine's notes, in the reader's language
    const settledEvent = S.events.find((e) => e.e === 'settled' && Array.isArray(e.notes));
    const notes = notesText(res && res.notes && res.notes.length ? res : settledEvent, phraseCtx());
    if (notes.length) {
      body.appendChild(el('details', { class: 'settle-notes' }, el('summary', { text: t('settle.details') }),
        el('ul', { testid: 'settle-notes' }, notes.map((n) => el('li', { text: n })))));
    }
    panel.appendChild(body);
    if (!(g && g.over)) panel.appendChild(readyRow());
    return panel;
  }

  function readyRow() {
    const g = S.game;
    if (g && g.over) return el('div', {});
    const sent = S.readySent === S.hand;
    const ready = S.deadline && Array.isArray(S.deadline.ready) ? S.deadline.ready : [];
    const watching = mySeat() === null;
    return el('div', { class: 'ready-row' },
      el('div', { class: 'ready-info' },
        S.deadline && S.deadline.kind === 'next' ? el('span', { class: 'next-in', 'data-countdown': 'next' }) : el('span', { class: 'muted', text: t('settle.waitNext') }),
        ready.length ? el('span', { class: 'ready-who muted', testid: 'ready-list', text: t('settle.readyWho', { names: ready.map((n) => seatName(n)).join(t('common.listSep')) }) }) : null),
      watching ? null : el('button', { type: 'button', class: 'btn primary big', testid: 'ready-button', disabled: sent, text: sent ? t('settle.readySent') : t('settle.ready'), onclick: doReady }));
  }

  return { sideLine, settlementPanel, readyRow };
}
