// The table page's action bar: whose turn it is, the deadline, the engine's refusal, a failed throw, and the
// buttons for each decision (bids, fries, pass, burial, play), kept from one drawing to the next.
// Part of the table page (table.js): `makeActions(ctx)` is given the page's state and helpers and returns its drawing functions.
import { getLang, has, t } from './i18n.js';
import { cardsName, miniCards } from './cards.js';
import { el } from './dom.js';
import { richText, trumpEl } from './table-common.js';

export function makeActions(ctx) {
  const {
    R,
    S,
    act,
    clearSel,
    doBid,
    doBury,
    doPass,
    doPlay,
    getLangSig,
    isAuto,
    isThrowSelection,
    legal,
    myPlayTurn,
    mySeat,
    render,
    seatName,
    selectedCodes,
    send,
    turnInfo,
    unchanged,
  } = ctx;

  function renderActions() {
    if (S.toast && S.toast.make) S.toast.text = S.toast.make();
    {
      const v0 = S.view;
      const ti0 = turnInfo();
      const lastThrow = S.events.map((e) => e.e).lastIndexOf('throw_failed');
      const tricksAfter = lastThrow >= 0 ? S.events.slice(lastThrow).filter((e) => e.e === 'trick').length : -1;
      if (unchanged('actions', [getLangSig(), ti0, turnText(ti0), S.deadline && [S.deadline.kind, S.deadline.seat], S.status,
        mySeat() !== null && isAuto(mySeat()), S.error, S.toast && S.toast.text, lastThrow, tricksAfter, S.dismissedThrow,
        S.events.length > lastThrow + 1 && lastThrow >= 0 ? S.events.slice(lastThrow, lastThrow + 3) : null,
        v0 && [v0.phase, v0.legal, v0.bids && v0.bids.some((b) => b.valid !== false)], [...S.sel].sort((a, b) => a - b), S.pending])) return;
    }
    const v = S.view;
    const auto = mySeat() !== null && isAuto(mySeat());
    const l = auto ? {} : legal(); // 托管: the bot decides, the page offers nothing to choose
    R.keepNext = new Map();
    R.actions.replaceChildren();
    const me = mySeat();
    const ti = turnInfo();

    // the turn line (the banner when it is this player's turn)
    const line = el('div', { class: 'turn-line' + (ti.mine ? ' mine' : '') });
    if (ti.mine) {
      line.dataset.testid = 'turn-banner';
      line.dataset.kind = ti.kind;
    }
    line.appendChild(el('span', { class: 'turn-text', text: turnText(ti) }));
    if (S.deadline) {
      line.appendChild(el('span', { class: 'deadline', testid: 'deadline', 'data-kind': S.deadline.kind, 'data-countdown': 'main', title: has(`deadline.${S.deadline.kind}`) ? t(`deadline.${S.deadline.kind}`) : '' }));
    }
    R.actions.appendChild(line);

    // 托管 banner: why it is on (asked for, or two decisions missed in a row, RULES §13) and a button to take control back
    if (auto && S.status === 'playing') {
      R.actions.appendChild(el('div', { class: 'auto-banner', testid: 'auto-banner', role: 'status', 'data-why': S.autoAsked ? 'asked' : 'missed' },
        el('span', { class: 'auto-why', text: S.autoAsked ? t('table.autoBanner') : t('table.autoBannerMissed') }),
        el('button', { type: 'button', class: 'btn primary', testid: 'auto-off', text: t('table.autoTakeBack'), onclick: () => { S.autoAsked = false; send({ type: 'auto', on: false, id: 'auto' }); } })));
    }
    // the engine's refusal
    if (S.error) {
      R.actions.appendChild(el('div', { class: 'error-banner', testid: 'error-banner', role: 'alert' },
        el('span', { text: S.error.text }),
        el('button', { type: 'button', class: 'close-x', 'aria-label': t('common.close'), text: '×', onclick: () => { S.error = null; render(); } })));
    }
    if (S.toast) R.actions.appendChild(el('div', { class: 'toast', role: 'status', text: S.toast.text }));
    const tf = throwFailedNotice();
    if (tf) R.actions.appendChild(tf);

    const bar = el('div', { class: 'action-bar' });
    const disabled = S.pending;
    // bids
    if (l.bids && l.bids.length) {
      const box = el('div', { class: 'options bid-buttons', testid: 'bid-buttons' },
        el('span', { class: 'options-label', text: v.bids && v.bids.some((b) => b.valid !== false) ? t('table.overrideWith') : t('table.declareWith') }));
      l.bids.forEach((opt, k) => box.appendChild(optionButton(opt, k, 'bid-option', () => doBid(opt), disabled)));
      bar.appendChild(box);
    }
    // fries
    if (l.pass || (l.fries && l.fries.length)) {
      const box = el('div', { class: 'options fry-options' },
        el('span', { class: 'options-label', text: (l.fries && l.fries.length) ? t('table.fryWith') : t('table.cannotFry') }));
      (l.fries || []).forEach((opt, k) => box.appendChild(optionButton(opt, k, 'fry-option', () => doBid(opt, true), disabled)));
      if (l.pass) box.appendChild(keptButton('pass', { class: 'btn pass-btn', testid: 'pass-button', title: 'P' }, t('table.pass'), doPass, disabled));
      bar.appendChild(box);
    }
    // show 5h 5h
    if (l.show_red5) {
      bar.appendChild(el('button', { type: 'button', class: 'btn gold', testid: 'show-red5-button', disabled, text: t('table.showRed5'), onclick: () => act({ a: 'show_red5' }) }));
    }
    // bury
    if (l.bury) {
      const n = S.sel.size;
      bar.appendChild(el('div', { class: 'bury-box' },
        el('span', { class: 'counter' + (n === l.bury ? ' full' : ''), testid: 'bury-counter', text: t('table.buryCount', { n, total: l.bury }) }),
        el('button', { type: 'button', class: 'btn small ghost', disabled: !n, text: t('table.clear'), onclick: clearSel }),
        keptButton('bury', { class: 'btn primary big', testid: 'bury-button' }, t('table.bury'), doBury, disabled || n !== l.bury)));
    }
    // play
    if (myPlayTurn()) {
      const sel = selectedCodes();
      const isThrow = isThrowSelection(sel);
      bar.appendChild(el('div', { class: 'play-box' },
        sel.length ? el('button', { type: 'button', class: 'btn small ghost', text: t('table.clear'), onclick: clearSel }) : null,
        el('span', { class: 'play-hint muted', text: sel.length ? (isThrow ? t('table.throwHint') : t('table.selectedN', { n: sel.length })) : (l.follows ? t('table.followHint') : t('table.leadHint')) }),
        keptButton(isThrow ? 'throw' : 'play', { class: 'btn primary big' + (isThrow ? ' warn' : ''), testid: 'play-button' }, isThrow ? t('table.throw') : t('table.play'), doPlay, disabled || !sel.length)));
    }
    if (bar.childNodes.length) R.actions.appendChild(bar);
    R.keep = R.keepNext;
    R.keepNext = null;
  }

  /** The action buttons are kept from one drawing to the next while they mean the same thing: a button the
   * player is about to press stays the same element when an update (a dealt card, another bid) redraws the bar. */
  function kept(key, make) {
    const fullKey = getLang() + '|' + key;
    let node = R.keep && R.keep.get(fullKey);
    if (!node) node = make();
    if (R.keepNext) R.keepNext.set(fullKey, node);
    return node;
  }

  function optionButton(opt, k, testid, onclick, disabled) {
    const b = kept(`${testid}|${opt.cards}|${opt.choose || ''}`, () => {
      const btn = el('button', { type: 'button', class: 'btn option-btn', testid, 'data-cards': opt.cards, 'data-choose': opt.choose || '' },
        el('kbd', { class: 'opt-key' }),
        miniCards(opt.cards));
      if (opt.choose) btn.appendChild(el('span', { class: 'choose' }, '→', trumpEl(opt.choose)));
      btn.addEventListener('click', onclick);
      btn.setAttribute('aria-label', cardsName(opt.cards) + (opt.choose ? ' → ' + (opt.choose === 'nt' ? t('trump.nt') : t(`suit.${opt.choose}`)) : ''));
      return btn;
    });
    b.disabled = !!disabled;
    const kbd = b.querySelector('.opt-key');
    kbd.textContent = k < 9 ? String(k + 1) : '';
    kbd.hidden = k >= 9;
    b.title = k < 9 ? String(k + 1) : '';
    return b;
  }

  function keptButton(key, attrs, text, onclick, disabled) {
    const b = kept(key, () => el('button', { type: 'button', ...attrs, onclick }));
    b.textContent = text;
    b.disabled = !!disabled;
    return b;
  }

  function turnText(ti) {
    const v = S.view;
    const g = S.game;
    if (S.status === 'waiting' || !v) return t('turn.waitingPlayers');
    if (g && g.over) return t('turn.gameOver');
    if (ti.auto && ['bury', 'fry', 'play'].includes(v.phase) && v.to_act === mySeat()) return t('turn.autoPlays');
    if (ti.mine) {
      if (ti.kind === 'play') return legal().follows ? t('turn.youFollow') : t('turn.youLead');
      return t(`turn.you.${ti.kind}`);
    }
    switch (v.phase) {
      case 'deal': return legal().bids && legal().bids.length ? t('turn.dealCanBid') : t('turn.deal');
      case 'countdown': return t('turn.countdown');
      case 'bury': return t('turn.othersBury', { name: seatName(v.to_act) });
      case 'fry': return t('turn.othersFry', { name: seatName(v.to_act) });
      case 'play': return t('turn.othersPlay', { name: seatName(v.to_act) });
      case 'over': return S.deadline && S.deadline.kind === 'next' ? t('turn.next') : t('turn.over');
      case 'redeal': return t('turn.redeal');
      default: return '';
    }
  }

  function throwFailedNotice() {
    let idx = -1;
    for (let i = S.events.length - 1; i >= 0; i--) if (S.events[i].e === 'throw_failed') { idx = i; break; }
    if (idx < 0 || idx === S.dismissedThrow) return null;
    const tricksAfter = S.events.slice(idx).filter((e) => e.e === 'trick').length;
    if (tricksAfter > 1 || (S.view && S.view.phase === 'over')) return null;
    const e = S.events[idx];
    const forced = S.events.slice(idx + 1).find((x) => x.e === 'played' && x.p === e.p);
    const box = el('div', { class: 'throw-failed', testid: 'throw-failed', role: 'status' },
      el('strong', { text: t('throw.title', { name: seatName(e.p) }) }),
      richText('throw.tried', { cards: e.cards || '' }),
      forced ? richText('throw.forced', { cards: forced.cards || '' }) : (e.forced ? richText('throw.mustLead', { cards: e.forced }) : null),
      el('span', { class: 'penalty', text: t('throw.penalty', { n: Math.abs(e.points || 0), sign: (e.points || 0) >= 0 ? '+' : '−' }) }),
      el('button', { type: 'button', class: 'close-x', 'aria-label': t('common.close'), text: '×', onclick: () => { S.dismissedThrow = idx; render(); } }));
    return box;
  }

  return { renderActions, kept, optionButton, keptButton, turnText, throwFailedNotice };
}
