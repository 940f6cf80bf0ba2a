// Trap Companion: the players' records on the phone and the simulator's page (issue 48). Loaded
// when "Players' records" is opened (players_face.js), with uPlot (served by the box: no network at the table). Every plot has its numbers
// as a table too; every word from the box is set as text.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
  let uplotReady = null;
  let charts = [];

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function loadUplot() {
    if (uplotReady) return uplotReady;
    const box = $("players-face");
    const css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = box.dataset.css;
    document.head.append(css);
    uplotReady = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = box.dataset.uplot;
      script.addEventListener("load", resolve);
      script.addEventListener("error", reject);
      document.head.append(script);
    });
    return uplotReady;
  }

  function table(caption, head, rows) {
    const t = el("table", null, "wide");
    t.append(el("caption", caption));
    const tr = el("tr");
    for (const h of head) { const th = el("th", h); th.scope = "col"; tr.append(th); }
    const thead = el("thead"); thead.append(tr); t.append(thead);
    const body = el("tbody");
    for (const row of rows) {
      const r = el("tr");
      row.forEach((cell, i) => {
        const c = el(i === 0 ? "th" : "td", cell === null || cell === undefined ? "–" : cell);
        if (i === 0) c.scope = "row";
        r.append(c);
      });
      body.append(r);
    }
    t.append(body);
    const wrap = el("div", null, "table-scroll");
    wrap.tabIndex = 0; // a wide table scrolls sideways: reachable by keyboard too
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", caption);
    wrap.append(t);
    return wrap;
  }

  // A plot: a figure with its caption, the chart (a picture for the eye, described for a
  // screen reader) and its numbers as a table under "Numbers".
  function plot(title, description, make, numbers) {
    const figure = el("figure", null, "plot");
    figure.append(el("figcaption", title));
    const holder = el("div");
    holder.setAttribute("role", "img");
    holder.setAttribute("aria-label", description);
    figure.append(holder);
    const more = el("details");
    more.append(el("summary", "Numbers"), numbers);
    figure.append(more);
    $("stats-body").append(figure);
    const width = Math.max(260, Math.min(holder.clientWidth || 340, 640));
    charts.push(make(holder, width));
  }

  function axisColor() {
    return getComputedStyle(document.body).color || "#222";
  }

  function bars(holder, width, labels, values, name) {
    const stroke = axisColor();
    // Names side by side run into each other on a phone: slanted when they would not fit.
    const crowded = labels.reduce((n, l) => n + String(l).length + 1, 0) * 7 > width;
    return new uPlot({
      width, height: 200, legend: { show: false }, cursor: { show: false },
      scales: { x: { time: false, range: [0.4, labels.length + 0.6] }, y: { range: (u, lo, hi) => [0, Math.max(1, hi)] } },
      axes: [
        { stroke, grid: { show: false }, splits: () => labels.map((_, i) => i + 1),
          values: (u, splits) => splits.map((i) => labels[i - 1] || ""),
          rotate: crowded ? -45 : 0, size: crowded ? 72 : 50 },
        { stroke, grid: { stroke: "rgba(128,128,128,.25)" }, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500] },
      ],
      series: [{}, { label: name, fill: COLORS[0], stroke: COLORS[0], paths: uPlot.paths.bars({ size: [0.6, 60] }), points: { show: false } }],
    }, [labels.map((_, i) => i + 1), values], holder);
  }

  function lines(holder, width, series) {
    const names = Object.keys(series);
    const xs = [...new Set(names.flatMap((n) => series[n].map((p) => p[0])))].sort((a, b) => a - b);
    const data = [xs, ...names.map((n) => {
      const at = new Map(series[n].map((p) => [p[0], p[2]]));
      return xs.map((x) => (at.has(x) ? at.get(x) : null));
    })];
    const stroke = axisColor();
    return new uPlot({
      width, height: 220,
      scales: { x: { time: false } },
      axes: [{ stroke, label: "play", grid: { stroke: "rgba(128,128,128,.25)" }, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500] }, { stroke, grid: { stroke: "rgba(128,128,128,.25)" } }],
      series: [{ label: "play" }, ...names.map((n, i) => ({ label: n, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true, points: { show: true, size: 6 } }))],
    }, data, holder);
  }

  function choices(select, values, keep, first, titles) {
    const chosen = keep !== undefined ? keep : select.value;
    select.replaceChildren();
    if (first) { const o = el("option", first[1]); o.value = first[0]; select.append(o); }
    for (const v of values) { const o = el("option", (titles && titles[v]) || v); o.value = v; select.append(o); }
    if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
  }

  let asked = 0; // the answer to the last question only: an older one arriving late is dropped

  async function loadRecords() {
    const mine = ++asked;
    $("stats-error").textContent = "";
    const query = new URLSearchParams({ game: $("stats-game").value, a: $("h2h-a").value, b: $("h2h-b").value });
    let data;
    try {
      const response = await fetch(`/api/records?${query}`, { credentials: "same-origin" });
      if (!response.ok) { $("stats-error").textContent = `records: error ${response.status}`; return; }
      data = await response.json();
      await loadUplot();
      if (mine !== asked) return;
    } catch (e) {
      $("stats-error").textContent = "records: the box is not reachable";
      return;
    }
    show(data);
  }

  function show(data) {
    charts.forEach((c) => c.destroy());
    charts = [];
    const titles = data.titles || {};
    choices($("stats-game"), data.choices.games, data.game || "", ["", "All games"], titles);
    choices($("h2h-a"), data.choices.players, undefined, ["", "a player"]);
    choices($("h2h-b"), data.choices.players, undefined, ["", "a player"]);
    choices($("manage-old"), data.choices.players, undefined, ["", "a player"]);
    const body = $("stats-body");
    body.replaceChildren();
    if (!data.players.length && !data.games.length) {
      body.append(el("p", "No plays kept yet: finish a game to see its records."));
      return;
    }
    const h2h = data.head_to_head;
    if (h2h) {
      body.append(el("p", `${h2h.a} and ${h2h.b} played ${h2h.plays} time(s) together: ${h2h.a} won ${h2h.wins_a}, ${h2h.b} won ${h2h.wins_b}.`));
    }
    body.append(table("Per player", ["Player", "Plays", "Wins", "Win rate", "Best", "Average", "Last played", "Run of wins", "Longest"],
      data.players.map((p) => [p.player, p.plays, p.wins, `${Math.round(p.rate * 100)}%`, p.best, p.average, p.last, p.streak, p.best_streak])));
    body.append(table("Per game", ["Game", "Plays", "Most wins", "High score"],
      data.games.map((g) => [titles[g.game] || g.game, g.plays, g.most_wins ? `${g.most_wins.player} (${g.most_wins.wins})` : null,
        g.high ? `${g.high.score}${g.high.player ? " " + g.high.player : ""}` : null])));
    if (data.spread) {
      body.append(el("p", `Scores from ${data.spread.low} to ${data.spread.high}, half of them at or under ${data.spread.median}.`));
    }
    const top = data.players.slice(0, 8);
    if (top.length) {
      const labels = top.map((p) => p.player);
      plot("Wins per player", `Bar chart of wins: ${top.map((p) => `${p.player} ${p.wins}`).join(", ")}`,
        (holder, width) => bars(holder, width, labels, top.map((p) => p.wins), "wins"),
        table("Wins per player", ["Player", "Wins", "Plays"], top.map((p) => [p.player, p.wins, p.plays])));
    }
    const named = Object.keys(data.series).filter((n) => data.series[n].length);
    if (named.length) {
      const rows = named.flatMap((n) => data.series[n].map((p) => [n, p[0], p[1] || "undated", p[2]]));
      plot("Scores over time", `Line chart of each player's scores by play, for ${named.join(", ")}`,
        (holder, width) => lines(holder, width, data.series),
        table("Scores over time", ["Player", "Play", "Date", "Score"], rows));
    }
    if (data.game && data.distribution.length) {
      const scores = data.distribution.map((d) => String(d[0]));
      plot("Scores of this game", `Bar chart of how often each score was made: ${data.distribution.map((d) => `${d[0]}: ${d[1]}`).join(", ")}`,
        (holder, width) => bars(holder, width, scores, data.distribution.map((d) => d[1]), "plays"),
        table("Scores of this game", ["Score", "How often"], data.distribution.map((d) => [d[0], d[1]])));
    }
  }

  for (const id of ["stats-game", "h2h-a", "h2h-b"]) $(id).addEventListener("change", loadRecords);
  window.loadRecords = loadRecords;
})();
