// The simulator's page: the box's picture from the event stream, input posted to the box.
// Plain JavaScript, no build step; everything the box decides arrives in the stream.
"use strict";

const KEYS = {
  ArrowUp: "up", ArrowDown: "down", k: "up", j: "down", K: "up", J: "down",
  Enter: "ok", o: "ok", O: "ok", b: "back", B: "back", Backspace: "back",
  g: "green", G: "green", r: "red", R: "red",
};
const LONG_KEYS = new Set(["K", "J", "O", "B", "G", "R"]);

let holdSeconds = 1.0;
let deck = [];
let soundNames = {};  // each cue's meaning in words (sounds.toml [names])
let shownGame = undefined;
let lastSeq = 0;
let audio = null;
let cues = null;
const heard = [];

const $ = (id) => document.getElementById(id);

function say(text) { $("said").textContent = text; }

// A refusal is said under the panel, or handed to ``refused`` (a card UID's, beside its box).
async function post(path, refused) {
  try {
    const r = await fetch(path, { method: "POST", headers: { "Accept": "application/json" } });
    if (!r.ok) {
      const body = await r.json().catch(() => ({ error: r.statusText }));
      if (refused && r.status === 400) refused(body.say || body.error);
      else say(body.error || `refused (${r.status})`);
    }
    return r.ok;
  } catch (err) {
    say("the box is not answering");
    return false;
  }
}

function uidError(text) {
  $("uid-error").textContent = text;
  const box = $("uid");
  if (text) {
    box.setAttribute("aria-invalid", "true");
    box.setAttribute("aria-describedby", "uid-error");
  } else {
    box.removeAttribute("aria-invalid");
    box.removeAttribute("aria-describedby");
  }
}

function press(button, long) {
  return post(`/api/press/${button}${long ? "?long=1" : ""}`);
}

async function tap(uid) {
  uidError("");  // the next tap clears what was said of the last
  if (await post(`/api/tap/${encodeURIComponent(uid)}`, uidError)) say(`tapped ${uid}`);
}

// --- the six buttons: a click is a short press; held to the box's hold time, or with shift,
// a long one (sent the moment the hold time is reached, not at the release). Keyboard
// activation of a focused button is a short press.
function wire(button) {
  const name = button.dataset.button;
  let down = false;
  let timer = null;
  const done = () => {
    down = false;
    clearTimeout(timer);
    button.classList.remove("held", "long");
  };
  button.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    down = true;
    button.classList.add("held");
    button.setPointerCapture(e.pointerId);
    timer = setTimeout(() => {
      if (!down) return;
      button.classList.add("long");
      down = false;  // the release that follows sends nothing more
      press(name, true);
    }, holdSeconds * 1000);
  });
  button.addEventListener("pointerup", (e) => {
    const pending = down;
    done();
    if (pending) press(name, e.shiftKey);
  });
  button.addEventListener("pointercancel", done);
  button.addEventListener("click", (e) => {
    if (e.detail === 0) press(name, e.shiftKey);  // Enter or Space on the focused button
  });
}

document.querySelectorAll("[data-button]").forEach(wire);

document.addEventListener("keydown", (e) => {
  const t = e.target;
  if (e.ctrlKey || e.altKey || e.metaKey) return;
  if (t instanceof HTMLInputElement) return;
  if (t instanceof HTMLButtonElement && (e.key === "Enter" || e.key === " ")) return;
  const button = KEYS[e.key];
  if (!button) return;
  e.preventDefault();
  press(button, LONG_KEYS.has(e.key));
});

$("tap-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const uid = $("uid").value.trim();
  if (uid) tap(uid);
});

// --- sounds through Web Audio, when the user turns them on
$("audio").addEventListener("change", async (e) => {
  if (!e.target.checked) return;
  if (!audio) audio = new AudioContext();
  await audio.resume();
  if (!cues) cues = await (await fetch("/api/sounds")).json();
});

function play(cue) {
  if (!audio || !cues || !$("audio").checked || !cues[cue]) return;
  let at = audio.currentTime + 0.01;
  for (const [hz, seconds] of cues[cue]) {
    if (hz) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "square";
      osc.frequency.value = hz;
      gain.gain.value = 0.05;
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + seconds);
    }
    at += seconds;
  }
}

function soundName(cue) {
  return soundNames[cue] || cue.replace(/_/g, " ");
}

// --- the picture
// The game's demo deck, grouped by kind ("Item cards (17)"), each group folding open: every
// card is a click or two away, however long the deck (Deathtrap Dungeon has 64).
function cardsFor(game) {
  const box = $("cards");
  box.replaceChildren();
  const mine = deck.filter((c) => c.game === game);
  if (!mine.length) {
    const p = document.createElement("p");
    p.className = "small";
    p.textContent = game ? "This game has no cards." : "Start a game to see its cards.";
    box.append(p);
    return;
  }
  const kinds = new Map();
  for (const card of mine) {
    const kind = card.kind || "other";
    if (!kinds.has(kind)) kinds.set(kind, []);
    kinds.get(kind).push(card);
  }
  let first = true;
  for (const [kind, cards] of kinds) {
    const group = document.createElement("details");
    group.className = "kind";
    group.open = first || kinds.size === 1;
    first = false;
    const summary = document.createElement("summary");
    summary.textContent = `${kind[0].toUpperCase()}${kind.slice(1)} cards (${cards.length})`;
    group.append(summary);
    const row = document.createElement("div");
    row.className = "kind-cards";
    for (const card of cards) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "btn";
      b.textContent = card.name;
      b.title = `tap ${card.uid}`;
      b.addEventListener("click", () => tap(card.uid));
      row.append(b);
    }
    group.append(row);
    box.append(group);
  }
}

function show(s) {
  if (s.seq <= lastSeq) return;
  lastSeq = s.seq;
  $("oled").src = s.png;
  $("oled").dataset.seq = s.seq;
  $("words").textContent = s.screen.join(" · ");
  const [r, g, b] = s.leds.led.map((c) => Math.round(255 * Math.max(0, Math.min(1, c))));
  const led = $("led");
  const on = s.pattern !== "off" && r + g + b > 0;
  const colour = `rgb(${r}, ${g}, ${b})`;
  led.style.background = on ? colour : "#000";
  led.style.setProperty("--glow", on ? colour : "transparent");
  led.className = `led ${on ? s.pattern : ""}`;
  const name = on ? `LED ${s.pattern} ${colour}` : "LED off";
  led.setAttribute("aria-label", name);
  $("led-text").textContent = on ? s.pattern : "off";
  $("reader").textContent = s.reader;
  for (const cue of s.sounds) { heard.push(soundName(cue)); play(cue); }
  heard.splice(0, Math.max(0, heard.length - 6));
  $("sounds").textContent = heard.length ? heard.join(", ") : "-";
  // A new game (another kind, or the same kind started again): what was said of the last
  // game's taps goes.
  const fresh = (s.log || []).some((line) => /^(new game|taken up again): /.test(line));
  if (s.game !== shownGame || fresh) {
    say("");
    uidError("");
    $("uid").value = "";
  }
  if (s.game !== shownGame) { shownGame = s.game; cardsFor(s.game); }
}

async function start() {
  try {
    const info = await (await fetch("/api/cards")).json();
    deck = info.cards;
    holdSeconds = info.hold_seconds;
    soundNames = info.sound_names || {};
  } catch (err) {
    say("the card list did not load");
  }
  connect();
}

// --- the live stream. A browser gives one site at most six connections, shared by all its
// tabs: a stream in every tab would leave none for the seventh tab or for the presses. So the
// tabs of this box share one stream: the tab holding the lock reads it and passes every event
// on to the others (BroadcastChannel); when it closes, the next tab takes the lock over.
// Without Web Locks (not a secure context), each tab reads its own stream.
const CHANNEL = "trap-companion-sim";
let events = null;
let last = null;
const channel = "BroadcastChannel" in window ? new BroadcastChannel(CHANNEL) : null;

// The box not answering: said beside the title, and the box and its panel greyed (what they
// show may be out of date) until it answers again, as the phone does.
function link(text, down) {
  $("link").textContent = text;
  $("link").classList.toggle("down", down);
  document.body.classList.toggle("stale", down);
}

function connect() {
  if (!(navigator.locks && channel)) { openStream(false); return; }
  channel.onmessage = (e) => {
    const m = e.data;
    if (m.type === "hello" && events && last) channel.postMessage({ type: "event", data: last });
    else if (m.type === "event") { link("live", false); show(m.data); }
    else if (m.type === "reset") lastSeq = 0;
    else if (m.type === "link") link(m.text, m.down);
  };
  navigator.locks.request(CHANNEL, () => new Promise(() => openStream(true)));  // held for good
  channel.postMessage({ type: "hello" });  // whoever reads the stream sends the newest frame
}

function openStream(share) {
  const tell = (m) => { if (share) channel.postMessage(m); };
  events = new EventSource("/api/events");
  events.onopen = () => {
    lastSeq = 0;  // a restarted box counts from 1 again
    tell({ type: "reset" });
    link("live", false);
    tell({ type: "link", text: "live", down: false });
  };
  events.onerror = () => {
    const text = "the box is not answering; trying again...";
    link(text, true);
    tell({ type: "link", text, down: true });
  };
  events.onmessage = (e) => {
    last = JSON.parse(e.data);
    show(last);
    tell({ type: "event", data: last });
  };
}

start();
