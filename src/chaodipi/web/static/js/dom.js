// Building the page: one small helper every page uses.

/**
 * A new element: `el('button', {class: 'btn', text: '出牌', testid: 'play-button', onclick: fn}, ...children)`.
 * Attributes: `class`, `text` (textContent), `testid` (data-testid), `on…` functions (listeners),
 * `true` (a boolean attribute); `undefined`, `null` and `false` are left out. Children may be
 * elements, texts, numbers or (nested) arrays of them; null, undefined and false are skipped.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k === 'testid') node.dataset.testid = v;
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, '');
    else node.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return node;
}
