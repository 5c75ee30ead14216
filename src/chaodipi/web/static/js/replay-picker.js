// The replay viewer's picker (/replay): open a record (a file, pasted text) or one of this server's games.
// Part of the replay viewer (replay.js): `makePicker(ctx)` is given the viewer's state and helpers and returns its drawing functions.
import { t } from './i18n.js';
import { el } from './dom.js';
import { progressText, roomName } from './replay-common.js';

export function makePicker(ctx) {
  const {
    errorBox,
    loadGames,
    setAttrs,
    state,
    teamName,
    upload,
    wrap,
  } = ctx;

  let pasteArea = null;
  function renderPicker() {
    setAttrs();
    const keepPaste = pasteArea ? pasteArea.value : '';
    const page = el('div', { class: 'r-page r-picker' });
    page.appendChild(el('div', { class: 'r-pick-head' },
      el('h1', { class: 'r-title', text: t('replay.title') }),
      el('p', { class: 'r-sub', text: t('replay.pickIntro') })));

    // open a record: a file, or pasted text
    const fileInput = el('input', { type: 'file', accept: '.json,application/json', testid: 'replay-upload', id: 'replay-upload', class: 'r-file-input' });
    fileInput.addEventListener('change', () => {
      const file = fileInput.files && fileInput.files[0];
      if (file) readFile(file);
    });
    const drop = el('label', { class: 'r-drop', for: 'replay-upload' },
      el('span', { class: 'r-drop-icon', 'aria-hidden': 'true', text: '⇪' }),
      el('span', { class: 'r-drop-main', text: t('replay.dropMain') }),
      el('span', { class: 'r-drop-sub', text: t('replay.dropSub') }));
    drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('r-over'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('r-over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('r-over');
      const file = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      if (file) readFile(file);
    });
    pasteArea = el('textarea', { class: 'r-paste', testid: 'replay-paste', rows: '4', spellcheck: 'false', placeholder: t('replay.pastePlaceholder'), 'aria-label': t('replay.pasteLabel') });
    pasteArea.value = keepPaste;
    const pasteBtn = el('button', { type: 'button', class: 'r-btn r-primary', testid: 'replay-paste-load', text: t('replay.pasteLoad'), disabled: state.loading });
    pasteBtn.addEventListener('click', () => upload(pasteArea.value, t('replay.pasted')));

    const openPanel = el('section', { class: 'r-panel r-open' },
      el('h2', { class: 'r-panel-title', text: t('replay.openTitle') }),
      fileInput, drop,
      el('div', { class: 'r-or', text: t('replay.or') }),
      el('label', { class: 'r-field-label', for: 'replay-paste-area', text: t('replay.pasteLabel') }),
      pasteArea,
      el('div', { class: 'r-row-end' }, state.loading ? el('span', { class: 'r-loading-inline', role: 'status' }, el('span', { class: 'r-spinner', 'aria-hidden': 'true' }), t('replay.loading')) : null, pasteBtn),
      state.error ? errorBox(state.error) : null);
    pasteArea.id = 'replay-paste-area';

    // finished games on this server
    const list = el('ul', { class: 'r-games', testid: 'replay-games' });
    if (state.games === null) {
      list.appendChild(el('li', { class: 'r-games-empty' }, el('span', { class: 'r-spinner', 'aria-hidden': 'true' }), t('replay.loading')));
    } else if (state.gamesError) {
      list.appendChild(el('li', { class: 'r-games-empty', text: t('replay.gamesError', { error: state.gamesError }) }));
    } else if (!state.games.length) {
      list.appendChild(el('li', { class: 'r-games-empty', text: t('replay.noGames') }));
    } else {
      for (const g of state.games) {
        const tb = g.table;
        const names = (tb.seats || []).map((s, n) => (s ? s.name : t('replay.seatLabel', { n })));
        const href = `/replay/${tb.id}/${g.game}`;
        const meta = el('span', { class: 'r-game-meta' },
          el('span', { class: 'r-chip', text: roomName(tb.room || (tb.rules && tb.rules.preset)) }),
          el('span', { class: 'r-muted', text: t('replay.gameN', { n: g.game }) }),
          tb.status === 'playing' ? el('span', { class: 'r-chip r-chip-live', text: t('replay.tablePlaying') }) : null,
          g.winner !== null && g.winner !== undefined ? el('span', { class: 'r-muted', text: t('replay.winnerShort', { team: teamName(g.winner) }) }) : null,
          g.levels ? el('span', { class: 'r-muted', text: `${progressText(g.levels[0])} : ${progressText(g.levels[1])}` }) : null);
        list.appendChild(el('li', { class: 'r-game' },
          el('a', { href, 'data-link': '', class: 'r-game-link', 'data-table': tb.id, 'data-game': g.game },
            el('span', { class: 'r-game-title' },
              el('strong', { text: tb.name || t('replay.tableN', { id: tb.id }) }),
              el('span', { class: 'r-muted', text: ` #${tb.id}` })),
            meta,
            el('span', { class: 'r-game-players', text: names.join(' · ') }),
            el('span', { class: 'r-game-go', 'aria-hidden': 'true', text: '›' }))));
      }
    }
    const gamesPanel = el('section', { class: 'r-panel r-list' },
      el('div', { class: 'r-panel-head' },
        el('h2', { class: 'r-panel-title', text: t('replay.gamesTitle') }),
        el('button', { type: 'button', class: 'r-btn r-small', text: t('replay.refresh'), onclick: () => { loadGames(); renderPicker(); } })),
      list);

    page.appendChild(el('div', { class: 'r-pick-grid' }, openPanel, gamesPanel));
    wrap.replaceChildren(page);
  }

  function readFile(file) {
    if (file.size > 2 * 1024 * 1024) {
      state.error = t('replay.error.tooLarge');
      renderPicker();
      return;
    }
    const reader = new FileReader();
    reader.onload = () => upload(String(reader.result || ''), file.name);
    reader.onerror = () => { state.error = t('replay.error.read'); renderPicker(); };
    reader.readAsText(file);
  }

  return { renderPicker, readFile };
}
