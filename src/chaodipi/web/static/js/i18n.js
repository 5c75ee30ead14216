// The words of the pages: t(key, params), the language ('zh' | 'en') and its listeners.
// The catalogues are flat objects of dotted keys (i18n/zh.js, i18n/en.js).
import zh from '../i18n/zh.js';
import en from '../i18n/en.js';
import zhPhrases from '../i18n/phrases-zh.js';
import enPhrases from '../i18n/phrases-en.js';

// The page's words, and the engine's phrases (refusals and settlement notes) in their own files.
const CATALOGUES = { zh: { ...zh, ...zhPhrases }, en: { ...en, ...enPhrases } };
const STORE_KEY = 'chaodipi.lang';
const listeners = new Set();
const warned = new Set();

function readStored() {
  try {
    const v = localStorage.getItem(STORE_KEY);
    if (v === 'zh' || v === 'en') return v;
  } catch (_) { /* storage may be off */ }
  return 'zh';
}

let lang = readStored();
if (typeof document !== 'undefined') document.documentElement.lang = lang;

/** The text of `key` in the current language, `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  let text = CATALOGUES[lang][key];
  if (text === undefined) {
    if (!warned.has(lang + ':' + key)) {
      warned.add(lang + ':' + key);
      console.warn(`i18n: no text for "${key}" in ${lang}`);
    }
    return key;
  }
  if (params && typeof text === 'string' && text.includes('{')) {
    text = text.replace(/\{(\w+)\}/g, (m, name) => (name in params && params[name] !== undefined && params[name] !== null ? String(params[name]) : m));
  }
  return text;
}

/** Whether the catalogue has `key` (for optional words such as an enum value). */
export function has(key) {
  return CATALOGUES[lang][key] !== undefined;
}

export function getLang() {
  return lang;
}

export function setLang(next) {
  if (next !== 'zh' && next !== 'en') return;
  if (next === lang) return;
  lang = next;
  try { localStorage.setItem(STORE_KEY, lang); } catch (_) { /* ignore */ }
  document.documentElement.lang = lang;
  for (const fn of [...listeners]) {
    try { fn(lang); } catch (e) { console.error(e); }
  }
}

/** Calls `fn(lang)` after every change of language; returns a function that stops it. */
export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
