// Trap Companion: the phone's page. Plain JS, no build step, no library. Every word from the
// box is set as text (never as HTML); pictures are SVG built element by element.
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
const HOLD_MS = 700; // held this long: a long press
let stream = null;
let game = undefined;
let timer = null; // {remaining, running, at}
let kinds = [];
let enrolled = null; // the enrolment run's count last shown: the card list follows it

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function rgb(c) {
  if (!c) return "#888";
  return `rgb(${c.map((v) => Math.round(Math.max(0, Math.min(1, v)) * 255)).join(",")})`;
}

function setLink(text, live) {
  $("link").textContent = text;
  $("link").classList.toggle("live", !!live);
}

// The box out of reach: said across the top, and what is shown greyed (it may be out of date)
// until the box answers again. A running countdown stops where it was: the box may have paused
// the turn meanwhile, and only the box's next word starts it again.
function reachable(yes) {
  $("offline").hidden = yes;
  document.body.classList.toggle("stale", !yes);
  if (!yes && timer && !timer.offline) {
    timer = { ...timer, remaining: left(timer), running: false, offline: true };
    tick();
  }
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body || {}),
  });
  let data = {};
  try { data = await response.json(); } catch (e) { data = {}; }
  if (response.status === 401) showPair();
  return { ok: response.ok, status: response.status, data };
}

// --- pairing ------------------------------------------------------------------------------

function showPair() {
  if (stream) { stream.close(); stream = null; }
  reachable(true);
  // Forgotten (or never paired): nothing of the last game stays on show.
  $("title").textContent = "Trap Companion";
  document.title = "Trap Companion";
  timer = null;
  tick();
  game = undefined;
  $("box").hidden = true;
  $("pair").hidden = false;
  setLink("not paired");
  $("code").focus();
}

$("pair-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("pair-error").textContent = "";
  const answer = await post("/api/pair", { code: $("code").value });
  if (answer.ok) {
    $("code").value = "";
    start();
  } else {
    $("pair-error").textContent = answer.data.error || `refused (${answer.status})`;
  }
});

// --- the live view ------------------------------------------------------------------------

async function start() {
  let response;
  try {
    response = await fetch("/api/state", { credentials: "same-origin" });
  } catch (e) {
    response = null;
  }
  if (response && response.status === 401) { showPair(); return; }
  if (!response || !response.ok) {
    setLink(response ? `error ${response.status}` : "box not reachable");
    reachable(false);
    setTimeout(start, 3000);
    return;
  }
  const data = await response.json();
  reachable(true);
  $("pair").hidden = true;
  $("box").hidden = false;
  render(data);
  connect();
  loadAbout();
}

// The running release and the one kept for going back (trap-companion version).
async function loadAbout() {
  let data;
  try {
    const response = await fetch("/api/about", { credentials: "same-origin" });
    if (!response.ok) return;
    data = await response.json();
  } catch (e) {
    return;
  }
  const rows = [["Running", data.running || `${data.program} (not an installed release)`]];
  if (data.on_trial) rows.push(["On trial", `${data.on_trial}, until it has proven it starts`]);
  rows.push(["Kept for going back", data.kept || "none"]);
  $("about").replaceChildren(...rows.flatMap(([k, v]) => [el("dt", k), el("dd", v)]));
}

function connect() {
  if (stream) stream.close();
  stream = new EventSource("/api/events");
  stream.onopen = () => { setLink("live", true); reachable(true); };
  stream.onmessage = (event) => {
    setLink("live", true);
    reachable(true);
    render(JSON.parse(event.data));
  };
  stream.onerror = () => {
    stream.close();
    stream = null;
    setLink("reconnecting…");
    reachable(false);
    setTimeout(start, 2000); // a forgotten phone gets the pairing form from /api/state
  };
}

function render(data) {
  const view = data && data.state;
  if (!view) return;
  $("title").textContent = view.title || "Trap Companion";
  document.title = view.title ? `${view.title} · Trap Companion` : "Trap Companion";
  renderTurn(view);
  renderPicture(view.picture);
  const facts = $("facts");
  facts.replaceChildren(...(view.facts || []).map((f) => el("li", f)));
  renderTable($("scoreboard"), view.scoreboard, "");
  renderTable($("standings"), view.standings, "Scores at the end of the race");
  $("screen").textContent = (data.screen || []).join("\n");
  renderRecords(view.records || []);
  renderEnrol(data.enrol);
  if (view.game !== game) {
    game = view.game;
    loadCards();
  }
}

function renderTurn(view) {
  const turn = $("turn");
  turn.replaceChildren();
  if (view.turn) {
    if (view.turn.rgb) {
      const swatch = el("span", null, "swatch");
      swatch.style.background = rgb(view.turn.rgb);
      turn.append(swatch);
    }
    turn.append(el("span", view.turn.label));
  }
  timer = view.timer ? { ...view.timer, at: performance.now() } : null;
  if (timer && !$("offline").hidden) timer = { ...timer, running: false, offline: true };
  tick();
  $("winner").textContent = view.winner ? `${view.winner} won` : "";
}

// Seconds left as the box's own timer reads them: whole seconds ("56 s"), m:ss from 100 s on.
function left(t) {
  return t.running ? t.remaining - (performance.now() - t.at) / 1000 : t.remaining;
}

function shown(whole) {
  if (whole < 100) return `${whole} s`;
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function tick() {
  const box = $("timer");
  const note = $("timer-note");
  if (!timer) { box.textContent = ""; note.textContent = ""; return; }
  const whole = Math.max(0, Math.ceil(left(timer) - 1e-6));
  box.textContent = shown(whole);
  // "paused" only when the box says the turn is paused (not a turn that has not started).
  const state = timer.offline ? "stopped: box not answering"
    : whole === 0 ? "time is up" : timer.paused ? "paused" : "";
  if (note.textContent !== state) note.textContent = state;
  box.classList.toggle("paused", state !== "" && whole > 0);
  box.classList.toggle("up", whole === 0);
}
setInterval(() => { if (timer && timer.running) tick(); }, 250);

// A table wider than the phone scrolls sideways: the line under it says so.
function moreHint(table) {
  const wrap = table.parentElement;
  $(`${table.id}-more`).hidden = !(wrap.scrollWidth > wrap.clientWidth + 1);
}
window.addEventListener("resize", () => ["scoreboard", "standings"].forEach((id) => moreHint($(id))));

function renderTable(table, data, caption) {
  table.replaceChildren();
  moreHint(table);
  if (!data || !data.rows || !data.rows.length) return;
  table.classList.toggle("wide", data.columns.length > 4);
  if (caption) table.append(el("caption", caption));
  const head = el("tr");
  data.columns.forEach((c) => head.append(el("th", c)));
  const thead = el("thead");
  thead.append(head);
  table.append(thead);
  const body = el("tbody");
  const leaders = new Set(data.leaders || []);
  data.rows.forEach((row, i) => {
    const tr = el("tr");
    row.forEach((cell, j) => {
      const td = el("td");
      if (j === 0 && data.seats && data.seats[i]) {
        const dot = el("span", null, "dot");
        dot.style.background = rgb(data.seats[i].rgb);
        td.append(dot);
      }
      td.append(document.createTextNode(cell === null || cell === undefined ? "" : String(cell)));
      if (j === 0 && leaders.has(cell)) td.className = "lead";
      tr.append(td);
    });
    body.append(tr);
  });
  table.append(body);
  moreHint(table);
}

function renderRecords(records) {
  const box = $("records");
  box.replaceChildren();
  if (!records.length) { box.append(el("p", "No records for this game yet.", "hint")); return; }
  for (const board of records) {
    box.append(el("p", `${board.board}: ${board.played} played, ${board.won} won`));
    const list = el("ol");
    board.best.forEach((r) => list.append(el("li", `${r.score} ${r.unit} (${r.date})`)));
    box.append(list);
  }
}

// --- pictures ------------------------------------------------------------------------------

function renderPicture(picture) {
  const box = $("picture");
  box.replaceChildren();
  if (!picture) return;
  const draw = { rounds: drawRounds, track: drawTrack, dungeon: drawDungeon }[picture.kind];
  if (draw) box.append(draw(picture));
}

function drawRounds(p) {
  // Each seat's running total after each round: who is ahead, and since when.
  const W = 340, H = 200, L = 30, R = 46, T = 22, B = 24;
  const picture = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": "Points by round" });
  const totals = p.seats.map((_, i) => {
    let sum = 0;
    return [0, ...p.rounds.map((r) => (sum += r[i] || 0))];
  });
  const most = Math.max(1, ...totals.flat());
  const n = Math.max(1, p.rounds.length);
  const x = (i) => L + (i / n) * (W - L - R);
  const y = (v) => H - B - (v / most) * (H - T - B);
  picture.append(svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#666" }));
  for (let i = 0; i <= n; i++) {
    picture.append(svg("text", { x: x(i), y: H - 8, "text-anchor": "middle" },
      i === 0 ? "start" : `R${i}`));
  }
  picture.append(svg("text", { x: 4, y: y(most) + 4 }, most));
  picture.append(svg("text", { x: L, y: T - 1 }, "Points after each round"));
  if (!p.rounds.length) {
    picture.append(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle" },
      "Points appear after the first round"));
  }
  totals.forEach((line, s) => {
    const colour = rgb(p.seats[s].rgb);
    const points = line.map((v, i) => `${x(i)},${y(v)}`).join(" ");
    picture.append(svg("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2.5 }));
    line.forEach((v, i) => picture.append(svg("circle", { cx: x(i), cy: y(v), r: 3, fill: colour })));
  });
  if (p.rounds.length) { // the totals at the end of each line, pushed apart where they meet
    const labels = totals.map((line, s) => ({ s, y: y(line[n]) + 4, v: line[n] }));
    labels.sort((a, b) => a.y - b.y);
    labels.forEach((label, i) => {
      if (i && label.y < labels[i - 1].y + 12) label.y = labels[i - 1].y + 12;
      picture.append(svg("text", { x: x(n) + 5, y: label.y },
        `S${p.seats[label.s].seat} ${label.v}`));
    });
  }
  return picture;
}

function drawTrack(p) {
  // The AI's way: from the start to the crystal and back to the boat.
  const W = 340, H = 96, L = 24, R = 24, Y = 46;
  const picture = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `Track: the AI at ${p.boat ? "the boat" : "space " + p.position}` });
  const x = (pos) => L + ((p.start - pos) / Math.max(1, p.start)) * (W - L - R);
  picture.append(svg("line", { x1: L, y1: Y, x2: W - R, y2: Y, stroke: "#888", "stroke-width": 6,
    "stroke-linecap": "round" }));
  for (let s = p.start; s >= 0; s--) {
    const major = s % 5 === 0;
    picture.append(svg("line", { x1: x(s), y1: Y - (major ? 9 : 5), x2: x(s), y2: Y + (major ? 9 : 5),
      stroke: "#bbb" }));
    if (major) picture.append(svg("text", { x: x(s), y: Y + 24, "text-anchor": "middle" }, s));
  }
  // The boat's label above the AI's crystal marker (which sits over the AI at the boat).
  picture.append(svg("text", { x: x(p.start), y: Y - 27, "text-anchor": "middle",
    class: "boat-label" }, "boat"));
  const cx = x(0); // the crystal: a diamond at the far end
  picture.append(svg("polygon", { points: `${cx},${Y - 24} ${cx + 7},${Y - 16} ${cx},${Y - 8} ${cx - 7},${Y - 16}`,
    fill: p.crystal ? "none" : "#4ac6e8", stroke: "#2a8fb0" }));
  const at = p.boat ? x(p.start) : x(p.position);
  picture.append(svg("circle", { cx: at, cy: Y, r: 11, fill: "#c83a3a", stroke: "#fff",
    "stroke-width": 2 }));
  picture.append(svg("text", { x: at, y: Y + 4, "text-anchor": "middle", "font-weight": 700,
    class: "on-dark" }, "AI"));
  if (p.crystal) {
    picture.append(svg("polygon", { points: `${at},${Y - 22} ${at + 6},${Y - 15} ${at},${Y - 8} ${at - 6},${Y - 15}`,
      fill: "#4ac6e8", stroke: "#2a8fb0", class: "crystal-marker" }));
  }
  // The caption comes with the picture (public.py: _track_caption).
  picture.append(svg("text", { x: W / 2, y: H - 4, "text-anchor": "middle" }, p.caption || ""));
  return picture;
}

function drawDungeon(p) {
  // The rooms in a row, the teams in theirs, the monster's lair and the cursed rooms.
  const rooms = p.rooms || [];
  const W = 340, gap = 6, per = Math.min(6, Math.max(1, rooms.length));
  const size = (W - gap * (per + 1)) / per, rows = Math.ceil(rooms.length / per);
  const H = rows * (size + gap) + gap + 20;
  const picture = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "Dungeon" });
  const teamColour = Object.fromEntries(
    Object.entries(p.team_rgb || {}).map(([team, c]) => [team, rgb(c)])); // the LED's own
  rooms.forEach((room, i) => {
    const cx = gap + (i % per) * (size + gap), cy = gap + Math.floor(i / per) * (size + gap);
    const lair = room === p.monster_room;
    picture.append(svg("rect", { x: cx, y: cy, width: size, height: size, rx: 6,
      fill: lair ? "#5a2222" : "#3a4250", stroke: lair ? "#e04848" : "#778" , "stroke-width": 2 }));
    picture.append(svg("text", { x: cx + 6, y: cy + 16, class: "on-dark", "font-weight": 700 }, room));
    // Badges in the corners, the team tokens between them: a token never hides a badge.
    const r = Math.min(8, size / 7);
    if (lair) badge(picture, cx + size - r - 1, cy + r + 1, "#e04848", "M", r, "lair-badge");
    if ((p.curse_rooms || []).includes(room)) {
      badge(picture, cx + size - r - 1, cy + size - r - 1, "#8e44ad", "C", r, "curse-badge");
    }
    Object.entries(p.teams || {}).forEach(([team, where], t) => {
      if (where !== room) return;
      const tx = cx + size * (t ? 0.66 : 0.3), ty = cy + size * 0.52;
      picture.append(svg("circle", { cx: tx, cy: ty, r: Math.min(12, size / 6), fill: teamColour[team] || "#999",
        stroke: p.glowing === team ? "#fff" : "none", "stroke-width": 3, class: "team-token" }));
      picture.append(svg("text", { x: tx, y: ty + 4, "text-anchor": "middle", "font-weight": 700,
        class: "on-dark" }, team));
    });
  });
  const words = [`M: monster (${p.monster || "?"})`, "C: curse"];
  if ((p.curses || []).length) words.push(`named: ${p.curses.map((c) => c.name).join(", ")}`);
  picture.append(svg("text", { x: gap, y: H - 6 }, words.join("  ·  ")));
  return picture;
}

function badge(picture, x, y, colour, letter, r, cls) {
  picture.append(svg("circle", { cx: x, cy: y, r: r || 8, fill: colour, class: cls || "badge" }));
  picture.append(svg("text", { x, y: y + 4, "text-anchor": "middle", "font-weight": 700,
    class: "on-dark" }, letter));
}

// --- the remote ---------------------------------------------------------------------------

document.querySelectorAll("#remote button").forEach((button) => {
  let down = null;
  const press = (long) => post(`/api/press/${button.dataset.button}${long ? "?long=1" : ""}`);
  button.addEventListener("pointerdown", (event) => {
    down = performance.now();
    button.classList.add("held");
    button.setPointerCapture(event.pointerId);
  });
  button.addEventListener("pointerup", (event) => {
    if (down === null) return;
    const long = performance.now() - down >= HOLD_MS || event.shiftKey;
    down = null;
    button.classList.remove("held");
    press(long);
  });
  button.addEventListener("pointercancel", () => { down = null; button.classList.remove("held"); });
  button.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") { event.preventDefault(); press(event.shiftKey); }
  });
  button.addEventListener("contextmenu", (event) => event.preventDefault());
});

// --- cards ----------------------------------------------------------------------------------

function renderEnrol(run) {
  const box = $("enrol-run");
  const count = run ? run.count : null;
  if (count !== enrolled) {
    if (enrolled !== null) loadCards(); // a copy was enrolled, or the run ended
    enrolled = count;
  }
  if (!run) { box.textContent = ""; return; }
  const copies = run.count === 1 ? "1 copy" : `${run.count} copies`;
  box.textContent = `${run.card}: ${copies} enrolled. Tap each copy on the box.`;
}

async function loadCards() {
  $("cards-error").textContent = "";
  const response = await fetch("/api/cards", { credentials: "same-origin" });
  if (response.status === 401) { showPair(); return; }
  if (!response.ok) { $("cards-error").textContent = `cards: error ${response.status}`; return; }
  const data = await response.json();
  kinds = data.kinds || [];
  const select = $("enrol-kind");
  select.replaceChildren(...kinds.map((k) => {
    const option = el("option", k.name);
    option.value = k.id;
    return option;
  }));
  $("enrol-form").hidden = !kinds.length;
  showFields();
  const list = $("cards");
  list.replaceChildren();
  const cardless = !data.game || (!kinds.length && !data.cards.length);
  $("cards-reload").hidden = cardless; // nothing to show: no "Show the cards"
  if (!data.game) { list.append(el("li", "Start a game on the box to see its cards.")); return; }
  if (cardless) {
    list.append(el("li", "This game is played without cards."));
    return;
  }
  if (!data.cards.length) list.append(el("li", "No cards of this game enrolled yet."));
  for (const card of data.cards) {
    const item = el("li");
    const what = el("span", card.name);
    const values = Object.entries(card.values || {}).map(([k, v]) => `${k} ${v}`).join(", ");
    what.append(el("small", `${card.kind}${values ? " · " + values : ""} · ${card.uid}`));
    const forget = el("button", "Forget");
    forget.type = "button";
    forget.setAttribute("aria-label", `Forget ${card.name} ${card.uid}`);
    forget.addEventListener("click", async () => {
      if (!confirm(`Forget ${card.name} (${card.uid})?`)) return;
      const answer = await post(`/api/cards/${encodeURIComponent(card.uid)}/forget`);
      if (!answer.ok) $("cards-error").textContent = answer.data.error || `error ${answer.status}`;
      loadCards();
    });
    item.append(what, forget);
    list.append(item);
  }
}

function showFields() {
  const kind = kinds.find((k) => k.id === $("enrol-kind").value);
  const box = $("enrol-fields");
  box.replaceChildren();
  for (const field of (kind && kind.fields) || []) {
    const label = el("label", `${field.name} `);
    const input = el("input");
    Object.assign(input, { type: "number", name: field.name, min: field.low, max: field.high,
      value: field.start, required: true });
    input.setAttribute("aria-label", field.name);
    label.append(input);
    box.append(label);
  }
}

$("enrol-kind").addEventListener("change", showFields);
$("cards-reload").addEventListener("click", loadCards);

$("enrol-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("cards-error").textContent = "";
  const body = { card: $("enrol-kind").value };
  $("enrol-fields").querySelectorAll("input").forEach((input) => { body[input.name] = input.value; });
  const answer = await post("/api/enrol", body);
  if (!answer.ok) $("cards-error").textContent = answer.data.error || `error ${answer.status}`;
});

// players_face.js (the players and their plays) says when the box does not know this phone
document.addEventListener("unpaired", showPair);

start();

