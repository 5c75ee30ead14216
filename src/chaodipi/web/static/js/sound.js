// A short beep and a vibration when it becomes the player's turn (off unless switched on).
const KEY = 'chaodipi.sound';
const listeners = new Set();
let ctx = null;

export function soundOn() {
  try { return localStorage.getItem(KEY) === 'on'; } catch (_) { return false; }
}

export function setSound(on) {
  try { localStorage.setItem(KEY, on ? 'on' : 'off'); } catch (_) { /* ignore */ }
  if (on) {
    unlock();
    beep(660, 0.08);
  }
  for (const fn of [...listeners]) fn(on);
}

export function onSoundChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Browsers start audio only after a gesture: called from the toggle's click. */
function unlock() {
  try {
    if (!ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return;
      ctx = new AC();
    }
    if (ctx.state === 'suspended') ctx.resume();
  } catch (_) { ctx = null; }
}

function beep(freq = 880, seconds = 0.12, when = 0) {
  if (!ctx) unlock();
  if (!ctx) return;
  try {
    const t0 = ctx.currentTime + when;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = 'sine';
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, t0);
    gain.gain.exponentialRampToValueAtTime(0.18, t0 + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, t0 + seconds);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t0);
    osc.stop(t0 + seconds + 0.02);
  } catch (_) { /* ignore */ }
}

/** The "your turn" signal. */
export function yourTurn() {
  if (!soundOn()) return;
  beep(784, 0.09);
  beep(1046, 0.12, 0.1);
  try { if (navigator.vibrate) navigator.vibrate([60, 40, 60]); } catch (_) { /* ignore */ }
}

/** A softer tick for the last seconds of the player's own deadline. */
export function tick() {
  if (!soundOn()) return;
  beep(520, 0.05);
}
