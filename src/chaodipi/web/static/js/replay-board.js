// The replay viewer's board: the four hands round the table (open or face down, as the chosen seat sees them),
// the trick on the table and the middle (level, trump, points).
// Part of the replay viewer (replay.js): `makeBoard(ctx)` is given the viewer's state and helpers and returns its drawing functions.
import { t } from './i18n.js';
import { isTrump } from './cards.js';
import { el } from './dom.js';
import { backCard, cardsRow, isTrickStep, levelText, smallCard, trumpEl } from './replay-common.js';

export function makeBoard(ctx) {
  const {
    hand,
    playerName,
    seatTitle,
    state,
    stepName,
    teamName,
    teamOf,
    ui,
  } = ctx;

  /** The seats' places around the table: the seat watched from at the bottom, play goes counter-clockwise. */
  function positions() {
    const me = state.seat === 'all' ? 0 : state.seat;
    const pos = {};
    pos[me] = 'bottom';
    pos[(me + 1) % 4] = 'right';
    pos[(me + 2) % 4] = 'top';
    pos[(me + 3) % 4] = 'left';
    return pos;
  }

  function renderSeats(snap) {
    const pos = positions();
    for (let s = 0; s < 4; s++) {
      const box = ui.seats[s];
      const p = pos[s];
      box.className = `r-seat r-pos-${p} r-team-${teamOf(s)}`;
      if (snap.dealer === s) box.classList.add('r-dealer');
      if (snap.toAct === s) box.classList.add('r-to-act');
      if (snap.left.has(s)) box.classList.add('r-left');
      if (!snap.all && snap.seat === s) box.classList.add('r-me');
      if (snap.shown && snap.shown.done && snap.shown.winner === s) box.classList.add('r-won');
      box.dataset.pos = p;

      const side = snap.sides ? snap.sides[s] : null;
      const head = el('div', { class: 'r-seat-head' },
        el('span', { class: 'r-seat-no', text: String(s) }),
        el('span', { class: 'r-seat-name', text: playerName(s), title: seatTitle(s) }),
        snap.dealer === s ? el('span', { class: 'r-badge r-badge-dealer', title: t('replay.dealer'), text: t('replay.dealerMark') }) : null,
        side ? el('span', { class: `r-side-tag r-side-${side}`, text: t('replay.side.' + side) }) : null,
        el('span', { class: 'r-team-tag', text: teamName(teamOf(s)) }),
        snap.left.has(s) ? el('span', { class: 'r-badge r-badge-left', text: t('replay.leftMark') }) : null,
        el('span', { class: 'r-count', title: t('replay.cardsInHand'), text: t('replay.nCards', { n: snap.sizes[s] }) }),
        snap.toAct === s ? el('span', { class: 'r-turn', title: t('replay.toAct'), 'aria-label': t('replay.toAct'), text: '●' }) : null);

      const row = el('div', { class: 'r-hand', testid: `replay-hand-${s}` });
      const codes = snap.hands[s];
      if (codes) {
        const mark = snap.marks[s];
        const kitty = snap.fromKitty[s] ? snap.fromKitty[s].slice() : [];
        let group = null;
        for (const c of codes) {
          const g = isTrump(c, mark) ? 'T' : c.slice(-1);
          const card = smallCard(c, mark);
          if (group !== null && g !== group) card.classList.add('r-gap');
          group = g;
          const ki = kitty.indexOf(c);
          if (ki >= 0) { kitty.splice(ki, 1); card.classList.add('from-kitty', 'r-from-kitty'); }
          row.appendChild(card);
        }
        row.classList.add('r-open');
        if (!codes.length) { row.classList.add('r-hand-none'); row.appendChild(el('span', { class: 'r-hand-empty', text: t('replay.noCards') })); }
      } else {
        row.classList.add('r-closed');
        const n = snap.sizes[s] || 0;
        for (let i = 0; i < n; i++) row.appendChild(backCard());
        if (!n) { row.classList.add('r-hand-none'); row.appendChild(el('span', { class: 'r-hand-empty', text: t('replay.noCards') })); }
      }
      row.dataset.count = String(codes ? codes.length : snap.sizes[s] || 0);
      box.replaceChildren(head, row);
    }
  }

  function renderCenter(snap) {
    const pos = positions();
    const trickBox = el('div', { class: 'r-trick', testid: 'replay-trick' });
    const shown = snap.shown;
    if (shown) {
      trickBox.dataset.done = shown.done ? 'true' : 'false';
      if (shown.done) trickBox.dataset.winner = String(shown.winner);
      for (const [s, cards] of shown.plays) {
        const won = shown.done && shown.winner === s;
        const play = el('div', { class: `r-play r-at-${pos[s]}` + (won ? ' r-play-won' : '') + (s === shown.leader ? ' r-play-lead' : ''), 'data-seat': s },
          cardsRow(cards, snap.facts, 'r-cards r-play-cards'),
          el('span', { class: 'r-play-who' },
            el('span', { class: `r-no r-no-${teamOf(s)}`, text: String(s) }),
            playerName(s),
            s === shown.leader ? el('span', { class: 'r-lead-tag', text: t('replay.lead') }) : null,
            won ? el('span', { class: 'r-win-tag', text: t('replay.wins') }) : null));
        trickBox.appendChild(play);
      }
    }
    // the middle: trump, level, points
    const hud = el('div', { class: 'r-hud' });
    const f = snap.f;
    hud.appendChild(el('div', { class: 'r-hud-row' },
      el('span', { class: 'r-hud-item' }, el('span', { class: 'r-hud-label', text: t('replay.level') }), el('strong', { class: 'r-hud-level', text: levelText(snap.level) })),
      el('span', { class: 'r-hud-item' }, el('span', { class: 'r-hud-label', text: t('replay.trump') }), trumpEl(snap.trump))));
    if (snap.phase === 'play' || snap.phase === 'over' || isTrickStep(f.step)) {
      const trickNo = snap.sub ? f.trick : shown && shown.done ? f.trick : (snap.tricks ? snap.tricks.length + (shown ? 1 : 0) : 0);
      hud.appendChild(el('div', { class: 'r-hud-row' },
        el('span', { class: 'r-hud-item' }, el('span', { class: 'r-hud-label', text: t('replay.scoring') }), el('strong', { class: 'r-hud-points', testid: 'replay-points', text: String(snap.points) })),
        trickNo ? el('span', { class: 'r-hud-item' }, el('span', { class: 'r-hud-label', text: t('replay.trickNo') }), el('strong', { text: String(trickNo) })) : null));
    }
    if (shown && shown.done) {
      hud.appendChild(el('div', { class: 'r-hud-trick' + (shown.points ? ' r-has-points' : '') },
        t('replay.trickWon', { name: playerName(shown.winner), points: shown.points })));
    } else if (!shown) {
      hud.appendChild(el('div', { class: 'r-hud-step', text: stepName(f, snap) }));
    }
    trickBox.appendChild(hud);
    ui.center.replaceChildren(trickBox);
  }

  return { positions, renderSeats, renderCenter };
}
