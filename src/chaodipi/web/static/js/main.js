// The client's entry point: the header bar and the router (/, /t/{id}[?watch=1], /replay, /replay/{table}/{game},
// /p/{username}, /rooms/{room}/leaderboard, /events, /events/{id}, /events/{id}/organise, /referee). Before the first page it asks who is logged in (GET /api/me).
import { t, getLang, setLang, onLangChange } from './i18n.js';
import { soundOn, setSound, onSoundChange } from './sound.js';
import * as api from './api.js';
import { buildAccountBar } from './account.js';
import { mountLobby } from './lobby.js';
import { mountTable } from './table.js';
import { mountPlayer } from './player.js';
import { mountLeaderboard, ROOM_NAMES } from './leaderboard.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
let cleanup = null;
let root = null;
let routeToken = 0;

function svgIcon(paths, cls) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', cls || 'icon');
  svg.setAttribute('aria-hidden', 'true');
  for (const d of paths) {
    const p = document.createElementNS(SVG_NS, 'path');
    p.setAttribute('d', d);
    svg.appendChild(p);
  }
  return svg;
}

const ICON_SOUND_ON = ['M4 9v6h4l5 4V5L8 9H4z', 'M16 8.5a5 5 0 0 1 0 7', 'M18.5 6a8.5 8.5 0 0 1 0 12'];
const ICON_SOUND_OFF = ['M4 9v6h4l5 4V5L8 9H4z', 'M16.5 9.5l5 5', 'M21.5 9.5l-5 5'];

function buildHeader() {
  const header = document.createElement('header');
  header.className = 'topbar';

  const brand = document.createElement('a');
  brand.className = 'brand';
  brand.href = '/';
  brand.dataset.link = '';
  const logo = document.createElement('img');
  logo.src = '/static/favicon.svg';
  logo.alt = '';
  logo.className = 'brand-logo';
  brand.append(logo, document.createTextNode('炒地皮'));
  header.appendChild(brand);

  const nav = document.createElement('nav');
  nav.className = 'topnav';
  const lobby = document.createElement('a');
  lobby.href = '/';
  lobby.dataset.link = '';
  lobby.dataset.nav = 'lobby';
  const replay = document.createElement('a');
  replay.href = '/replay';
  replay.dataset.link = '';
  replay.dataset.nav = 'replay';
  const events = document.createElement('a');
  events.href = '/events';
  events.dataset.link = '';
  events.dataset.nav = 'events';
  events.dataset.testid = 'nav-events';
  nav.append(lobby, replay, events);
  header.appendChild(nav);

  const spacer = document.createElement('div');
  spacer.className = 'spacer';
  header.appendChild(spacer);

  const sound = document.createElement('button');
  sound.type = 'button';
  sound.className = 'icon-btn';
  sound.dataset.testid = 'sound-toggle';
  sound.addEventListener('click', () => setSound(!soundOn()));
  header.appendChild(sound);

  const langBtn = document.createElement('button');
  langBtn.type = 'button';
  langBtn.className = 'lang-btn';
  langBtn.dataset.testid = 'lang-switch';
  langBtn.addEventListener('click', () => setLang(getLang() === 'zh' ? 'en' : 'zh'));
  header.appendChild(langBtn);
  header.appendChild(buildAccountBar());

  function paint() {
    lobby.textContent = t('nav.lobby');
    replay.textContent = t('nav.replay');
    langBtn.textContent = getLang() === 'zh' ? 'English' : '中文';
    langBtn.title = t('nav.langTitle');
    langBtn.setAttribute('aria-label', t('nav.langTitle'));
    const on = soundOn();
    sound.replaceChildren(svgIcon(on ? ICON_SOUND_ON : ICON_SOUND_OFF));
    sound.setAttribute('aria-pressed', on ? 'true' : 'false');
    sound.dataset.state = on ? 'on' : 'off';
    sound.title = on ? t('nav.soundOn') : t('nav.soundOff');
    sound.setAttribute('aria-label', sound.title);
    const path = location.pathname;
    lobby.classList.toggle('active', path === '/' || path.startsWith('/t/') || path.startsWith('/rooms/'));
    replay.classList.toggle('active', path.startsWith('/replay'));
    events.textContent = t('nav.events');
    events.classList.toggle('active', path.startsWith('/events') || path.startsWith('/referee'));
  }
  paint();
  onLangChange(paint);
  onSoundChange(paint);
  window.addEventListener('chaodipi:routed', paint);
  return header;
}

function message(text, withLobbyLink = true) {
  const box = document.createElement('div');
  box.className = 'page-message';
  const p = document.createElement('p');
  p.textContent = text;
  box.appendChild(p);
  if (withLobbyLink) {
    const a = document.createElement('a');
    a.href = '/';
    a.dataset.link = '';
    a.className = 'btn';
    a.textContent = t('nav.backToLobby');
    box.appendChild(a);
  }
  return box;
}

async function route() {
  const token = ++routeToken;
  if (typeof cleanup === 'function') {
    try { cleanup(); } catch (e) { console.error(e); }
  }
  cleanup = null;
  root.replaceChildren();
  root.className = 'app';
  const path = location.pathname.replace(/\/+$/, '') || '/';
  let m;
  if (path === '/') {
    document.title = `${t('lobby.title')} · 炒地皮`;
    cleanup = mountLobby(root);
  } else if ((m = path.match(/^\/t\/(\d+)$/))) {
    document.title = `${t('table.titleShort', { id: m[1] })} · 炒地皮`;
    const watch = new URLSearchParams(location.search).get('watch');
    cleanup = mountTable(root, Number(m[1]), { watch: watch === '1' || watch === 'true' });
  } else if ((m = path.match(/^\/p\/([^/]+)$/))) {
    let name;
    try { name = decodeURIComponent(m[1]); } catch (_) { name = m[1]; }
    document.title = `${name} · 炒地皮`;
    cleanup = mountPlayer(root, name);
  } else if ((m = path.match(/^\/rooms\/([a-z0-9_-]+)\/leaderboard$/)) && ROOM_NAMES.includes(m[1])) {
    document.title = `${t('board.title')} · 炒地皮`;
    cleanup = mountLeaderboard(root, m[1]);
  } else if ((m = path.match(/^\/replay(?:\/(\d+)\/(\d+))?$/))) {
    document.title = `${t('nav.replay')} · 炒地皮`;
    const params = m[1] ? { table: Number(m[1]), game: Number(m[2]) } : {};
    try {
      const mod = await import('./replay.js');
      if (token !== routeToken) return;
      if (typeof mod.mountReplay !== 'function') throw new Error('replay.js has no mountReplay');
      cleanup = mod.mountReplay(root, params) || null;
    } catch (e) {
      console.error(e);
      if (token !== routeToken) return;
      root.replaceChildren(message(t('app.replayUnavailable')));
    }
  } else if ((m = path.match(/^\/events(?:\/([^/]+)(\/organise)?)?$/)) || path === '/referee') {
    // the events pages (赛事) and the referee's tool: their modules are loaded when first opened
    const which = path === '/referee' ? 'referee' : !m[1] ? 'list' : m[2] ? 'organise' : 'event';
    let id = null;
    if (m && m[1]) { try { id = decodeURIComponent(m[1]); } catch (_) { id = m[1]; } }
    document.title = `${t(which === 'referee' ? 'ref.title' : 'ev.title')} · 炒地皮`;
    try {
      const file = { list: './events.js', event: './event-page.js', organise: './event-organise.js', referee: './referee-tool.js' }[which];
      const mod = await import(file);
      if (token !== routeToken) return;
      const mount = { list: mod.mountEvents, event: mod.mountEventPage, organise: mod.mountEventOrganise, referee: mod.mountReferee }[which];
      cleanup = mount(root, id) || null;
    } catch (e) {
      console.error(e);
      if (token !== routeToken) return;
      root.replaceChildren(message(t('ev.unavailable')));
    }
  } else {
    document.title = '炒地皮';
    root.appendChild(message(t('app.notFound')));
  }
  window.dispatchEvent(new CustomEvent('chaodipi:routed'));
}

export function navigate(path, replace = false) {
  if (path === location.pathname + location.search && !replace) {
    route();
    return;
  }
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.scrollTo(0, 0);
  route();
}

async function start() {
  await api.loadSession();
  document.body.replaceChildren();
  document.body.appendChild(buildHeader());
  root = document.createElement('main');
  root.id = 'app';
  document.body.appendChild(root);

  // Links inside the app navigate without reloading the page.
  document.addEventListener('click', (ev) => {
    if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const a = ev.target.closest && ev.target.closest('a[data-link]');
    if (!a || a.target === '_blank') return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin) return;
    ev.preventDefault();
    navigate(url.pathname + url.search);
  });
  window.addEventListener('popstate', route);
  window.addEventListener('chaodipi:navigate', (ev) => navigate(ev.detail.path, !!ev.detail.replace));
  // a login, a registration or a logout: the page is drawn again for who is there now (a table's socket too)
  api.onAccountChange(() => route());
  // 在所有设备退出 in another browser ends this session too: ask again when the page comes back into view
  document.addEventListener('visibilitychange', () => { if (!document.hidden) api.loadSession(); });
  route();
}

start();
