// Trap Companion: the players and their plays (issue 48), one script for both faces, the paired
// phone's page and the simulator's page. It fills <div id="players-face">: the seats named by
// typing (the names the box knows offered), the plays downloaded (CSV, BG Stats), the players'
// records (records.js and uPlot, named by the div's data-script, data-uplot and data-css, load
// only when opened) and a player renamed, merged or forgotten (a merge or a forget asks first:
// the box says what it will do). Every word from the box is set as text, never as HTML.
// A 401 (a phone not paired) is passed on as the document's "unpaired" event.
"use strict";

(function () {
  const face = document.getElementById("players-face");
  if (!face) return;
  const $ = (id) => document.getElementById(id);

  // Fixed markup, no word from the box in it.
  face.innerHTML = `
<h2 id="players-h">Players</h2>
<form id="seats-form" hidden aria-labelledby="players-h">
  <div id="seats"></div>
  <datalist id="known-names"></datalist>
  <button type="submit">Name the seats</button>
</form>
<p id="seats-none"></p>
<button id="seats-reload" type="button">Show the seats</button>
<p id="seats-error" class="said-error" role="alert"></p>
<label id="import-label">Names to pick from, from a BG Stats export (JSON)
  <input id="import-file" type="file" accept=".json,application/json"></label>
<p id="import-said" role="status"></p>
<p id="import-error" class="said-error" role="alert"></p>
<h2 id="stats-h">Players' records</h2>
<p id="exports">Every finished game is kept as a play:
  <a href="/api/export/csv" download>download as CSV</a> or
  <a href="/api/export/bgstats" download>for BG Stats (JSON)</a>.</p>
<details id="stats">
  <summary>Show the players' records</summary>
  <div id="stats-choose">
    <label>Game <select id="stats-game"><option value="">All games</option></select></label>
    <label>Head to head <select id="h2h-a"></select></label>
    <label>against <select id="h2h-b"></select></label>
  </div>
  <div id="stats-body"></div>
  <p id="stats-error" class="said-error" role="alert"></p>
  <h3 id="manage-h">Rename, merge or forget a player</h3>
  <form id="manage-form" aria-labelledby="manage-h">
    <label>Player <select id="manage-old" name="old" required></select></label>
    <label>New name, or the player to merge into
      <input id="manage-new" name="new" maxlength="24" list="known-names" autocomplete="off"></label>
    <div class="manage-verbs">
      <button type="submit" value="rename">Rename</button>
      <button type="submit" value="merge">Merge into</button>
      <button type="submit" value="forget">Forget</button>
    </div>
  </form>
  <div id="manage-ask" hidden>
    <p id="manage-question"></p>
    <button id="manage-yes" type="button">Yes, do it</button>
    <button id="manage-no" type="button">No</button>
  </div>
  <p id="manage-said" role="status"></p>
  <p id="manage-error" class="said-error" role="alert"></p>
</details>`;

  function el(tag, text) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // A request to the box: its JSON answer (or {}), ok and status; a 401 said to the page.
  async function ask(path, body) {
    const init = { credentials: "same-origin" };
    if (body !== undefined) {
      // JSON, not a form: an emptied name ("" leaves a seat unnamed) must reach the box
      Object.assign(init, { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body) });
    }
    let response;
    try { response = await fetch(path, init); } catch (e) {
      return { ok: false, status: 0, data: { error: "the box is not reachable" } };
    }
    let data = {};
    try { data = await response.json(); } catch (e) { data = {}; }
    if (response.status === 401) document.dispatchEvent(new CustomEvent("unpaired"));
    if (!response.ok && !data.error) data.error = `error ${response.status}`;
    return { ok: response.ok, status: response.status, data };
  }

  // --- the seats: type a name per seat, or pick one the box knows ---------------------------

  async function loadSeats() {
    $("seats-error").textContent = "";
    const answer = await ask("/api/seats");
    if (!answer.ok) { $("seats-error").textContent = `players: ${answer.data.error}`; return; }
    showSeats(answer.data);
  }

  function showSeats(data) {
    $("known-names").replaceChildren(...data.known.map((name) => {
      const option = el("option");
      option.value = name;
      return option;
    }));
    const box = $("seats");
    box.replaceChildren();
    for (const seat of data.seats) {
      const label = el("label", `${seat.label} `);
      const input = el("input");
      input.name = seat.seat;
      input.value = seat.player || "";
      input.maxLength = 24;
      input.setAttribute("list", "known-names");
      input.autocomplete = "off";
      label.append(input);
      box.append(label);
    }
    $("seats-form").hidden = !data.seats.length;
    $("seats-none").textContent = data.game ? (data.seats.length ? "" : "This game has no seats to name.")
      : "Start a game on the box to name its seats.";
  }

  $("seats-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("seats-error").textContent = "";
    const names = {};
    for (const input of $("seats").querySelectorAll("input")) names[input.name] = input.value;
    const answer = await ask("/api/seats", names);
    if (!answer.ok) { $("seats-error").textContent = answer.data.error; return; }
    showSeats(answer.data);
  });
  $("seats-reload").addEventListener("click", loadSeats);

  // --- names to pick from, read here from a BG Stats export (its players' names only), sent in
  // bodies the box takes (a few kilobytes each) ------------------------------------------------

  const BODY = 3000; // characters of names in one request

  $("import-file").addEventListener("change", async () => {
    const file = $("import-file").files[0];
    $("import-said").textContent = "";
    $("import-error").textContent = "";
    if (!file) return;
    let names;
    try {
      const data = JSON.parse(await file.text());
      if (!data || !Array.isArray(data.players)) throw new Error("no list of players");
      names = data.players.filter((p) => p && typeof p.name === "string" && !p.isAnonymous)
        .map((p) => p.name.replace(/\s+/g, " ").trim()).filter((n) => n);
      names = [...new Set(names)]; // once each
    } catch (e) {
      $("import-error").textContent = `${file.name}: not a BG Stats export (${e.message})`;
      return;
    }
    const batches = [[]];
    let size = 0;
    for (const name of names) {
      if (size + name.length + 1 > BODY) { batches.push([]); size = 0; }
      batches[batches.length - 1].push(name);
      size += name.length + 1;
    }
    let added = 0;
    const refused = [];
    for (const batch of batches) {
      if (!batch.length) continue;
      const answer = await ask("/api/players/import", { names: batch.join("\n") });
      if (!answer.ok) { $("import-error").textContent = answer.data.error; return; }
      added += answer.data.added.length;
      refused.push(...answer.data.refused);
    }
    $("import-said").textContent = `${added} name(s) added to pick from, ` +
      `${names.length - added - refused.length} known already` +
      (refused.length ? `; left out: ${refused.join("; ")}` : "") + ".";
    $("import-file").value = "";
    if ($("seats-form").hidden === false) loadSeats();
  });

  // --- the players' records: records.js and its plots load only when opened ------------------

  function records() {
    if (window.loadRecords) { window.loadRecords(); return; }
    const script = document.createElement("script");
    script.src = face.dataset.script;
    script.addEventListener("load", () => window.loadRecords && window.loadRecords());
    document.head.append(script);
  }

  $("stats").addEventListener("toggle", () => { if ($("stats").open) records(); });

  // --- a player renamed, merged or forgotten: the box asks before a merge or a forget --------

  let pending = null; // the change the box asked about

  function said(text, error) {
    $("manage-said").textContent = error ? "" : text;
    $("manage-error").textContent = error ? text : "";
  }

  function asking(question) {
    $("manage-question").textContent = question;
    $("manage-ask").hidden = !question;
    $("manage-form").hidden = !!question;
    if (question) $("manage-no").focus();
  }

  async function changePlayer(verb, confirm) {
    const body = { old: $("manage-old").value, new: $("manage-new").value };
    if (confirm) body.confirm = "1";
    const answer = await ask(`/api/players/${verb}`, body);
    if (!answer.ok) { asking(""); said(answer.data.error, true); return; }
    if (answer.data.ask) { pending = verb; said(""); asking(answer.data.ask); return; }
    pending = null;
    asking("");
    $("manage-new").value = "";
    said(answer.data.done);
    records();
  }

  $("manage-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const verb = event.submitter ? event.submitter.value : "rename";
    changePlayer(verb, false);
  });
  $("manage-yes").addEventListener("click", () => { if (pending) changePlayer(pending, true); });
  $("manage-no").addEventListener("click", () => {
    pending = null;
    asking("");
    said("Nothing changed.");
  });
})();
