"""The leaderboard page's style sheet and script (inlined by :mod:`.page`; no network).

The script reads the page's embedded JSON (``#page-data``), builds the sortable
leaderboard for the chosen dataset and question subset (overall or one split × language),
draws every interval as a bar on a 0–100 scale, lists warnings, and opens a per-question
drill-down showing each sample's extracted answer, how it was found, the verdict and who
decided it (and, where the run's file records them, its finish reason and output tokens,
beside each run's output-token statistics); the drill-down exports its judged samples as an audit sheet (the columns of
``gpassk-oc audit``, :data:`~gpassk_oc.report.auditing.audit_verdicts.SHEET_COLUMNS`, carried in the page data).
"""

PAGE_STYLE = """
body{font-family:system-ui,sans-serif;margin:0 1.5em 1.5em;color:#222;max-width:1400px}
header#top{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid #ddd;
 padding:.4em 0}
header#top h1{margin:.2em 0}
.scroll{overflow:auto;max-width:100%;max-height:75vh;margin:.5em 0 1.5em;border:1px solid #ddd}
.scroll table{margin:0}
.scroll thead th,.scroll tr:first-child th{position:sticky;top:0;z-index:1}
#controls select{max-width:14em}
#leaderboard td{white-space:nowrap}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right;vertical-align:middle;white-space:nowrap}
td.text,td.answer{white-space:normal}
th{background:#f3f3f3;cursor:pointer;user-select:none;white-space:nowrap}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
td.text,th.text{text-align:left}
td.model{cursor:pointer;color:#0645ad;text-decoration:underline}
.bar{display:inline-block;position:relative;width:90px;height:8px;background:#eee;
 margin-left:6px;vertical-align:middle;border-radius:2px}
.bar .ci{position:absolute;top:0;height:8px;background:#7fa7d9;border-radius:2px}
.bar .pt{position:absolute;top:-2px;width:2px;height:12px;background:#123}
td.posterior::after{content:"*";color:#555}
td.unreliable::after{content:"!";color:#b42318;font-weight:bold}
td.wide::after{content:"+";color:#555;font-weight:bold}
.warn{color:#a15c00;font-weight:bold;margin-left:4px;cursor:help}
#warnings li{color:#7a4400}#warnings summary{font-weight:bold;color:#7a4400;cursor:pointer}
#detail{border:1px solid #bbb;padding:.5em 1em;background:#fafafa;margin:1em 0}
#detail td.answer{font-family:monospace;text-align:left;max-width:28em;overflow-wrap:anywhere}
tr.q{cursor:pointer}tr.q:hover{background:#f0f6ff}
.ok{color:#1a7f37}.bad{color:#b42318}.unk{color:#777}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}
#controls label{margin-right:1em;white-space:nowrap}
#drill-missing{color:#b42318}
"""

PAGE_SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("page-data").textContent);
  var state = {dataset: 0, subset: "overall", kind: null, sortKey: null, sortDir: 1,
               filters: {model: "", temperature: "", top_p: ""}};
  var drills = {}, waiting = {};
  // a row's drill-down script (drilldown.py) calls this when it has loaded
  window.gpasskDrill = function (id, payload) {
    drills[id] = payload;
    if (waiting[id]) { var done = waiting[id]; delete waiting[id]; done(payload); }
  };

  function el(tag, attrs, kids) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") { node.textContent = attrs[k]; } else { node.setAttribute(k, attrs[k]); }
    });
    (kids || []).forEach(function (kid) { node.appendChild(kid); });
    return node;
  }
  function fmt(v) { return v === null || v === undefined ? "\u2013" : v.toFixed(1); }
  function dataset() { return data.datasets[state.dataset]; }
  function kinds() {
    var seen = [];
    dataset().rows.forEach(function (row) {
      Object.keys(row.cells).forEach(function (s) {
        var values = row.cells[s].values;
        Object.keys(values).forEach(function (c) {
          ((values[c] || {}).intervals || []).forEach(function (iv) {
            if (seen.indexOf(iv.kind) < 0) { seen.push(iv.kind); }
          });
        });
      });
    });
    return seen;
  }
  function interval(est) {
    // only the selected kind: another kind's interval is never drawn under this name
    if (!est) { return null; }
    for (var i = 0; i < est.intervals.length; i++) {
      if (est.intervals[i].kind === state.kind) { return est.intervals[i]; }
    }
    return null;
  }
  function ivText(iv) {
    if (iv.status === "no width") { return "none: " + data.no_width_note[state.kind]; }
    if (iv.status === "n < 2k") { return "none: " + data.short_note; }
    // a narrow interval gets the decimals that show its width (up to 4), as the markdown
    var d = 1, both = typeof iv.low === "number" && typeof iv.high === "number";
    while (both && d < 4 && iv.high > iv.low && iv.low.toFixed(d) === iv.high.toFixed(d)) { d++; }
    var bounds = both ? iv.low.toFixed(d) + "\u2013" + iv.high.toFixed(d)
      : fmt(iv.low) + "\u2013" + fmt(iv.high);
    return bounds + (iv.status === "posterior" ? " (posterior)" : "") +
      (iv.status === "wide" ? " (" + data.wide_note + ")" : "") +
      (iv.status === "unreliable" ? " (" + data.unreliable_note + ")" : "");
  }
  function cellValue(row, key) {
    var cell = row.cells[state.subset];
    if (!cell) { return null; }
    if (key === "n") { return row.n; }
    if (key === "Q") { return cell.questions; }
    var est = cell.values[key];
    return est ? est.value : null;
  }

  function renderControls() {
    var box = document.getElementById("controls");
    box.textContent = "";
    // the dataset filter, like the others, only where it can choose (> 1 dataset); a
    // dataset's rows have their own question subsets, so it picks one at a time
    if (data.datasets.length > 1) {
      var ds = el("select", {id: "filter-dataset"});
      data.datasets.forEach(function (d, i) {
        var o = el("option", {value: String(i), text: d.name});
        if (i === state.dataset) { o.selected = true; }
        ds.appendChild(o);
      });
      ds.onchange = function () {
        state.dataset = +ds.value; state.subset = "overall";
        state.filters = {model: "", temperature: "", top_p: ""};
        render();
      };
      box.appendChild(el("label", {text: "dataset "}, [ds]));
    }
    var sub = el("select", {id: "subset"});
    dataset().subsets.forEach(function (s) {
      var o = el("option", {value: s, text: s});
      if (s === state.subset) { o.selected = true; }
      sub.appendChild(o);
    });
    sub.onchange = function () { state.subset = sub.value; render(); };
    box.appendChild(el("label", {text: "Questions "}, [sub]));
    ["model", "temperature", "top_p"].forEach(function (name) {
      var values = [];
      dataset().rows.forEach(function (r) {
        if (values.indexOf(r.filters[name]) < 0) { values.push(r.filters[name]); }
      });
      if (values.length < 2) { return; }
      values.sort(function (a, b) { return isNaN(a) || isNaN(b) ? a.localeCompare(b) : a - b; });
      var pick = el("select", {id: "filter-" + name}, [el("option", {value: "", text: "all"})]);
      values.forEach(function (v) {
        var o = el("option", {value: v, text: v});
        if (v === state.filters[name]) { o.selected = true; }
        pick.appendChild(o);
      });
      pick.onchange = function () { state.filters[name] = pick.value; renderBoard(); };
      box.appendChild(el("label", {text: name + " "}, [pick]));
    });
    var ks = kinds();
    if (state.kind === null || ks.indexOf(state.kind) < 0) { state.kind = ks[0] || null; }
    if (ks.length > 1) {
      var kind = el("select", {id: "interval-kind"});
      ks.forEach(function (k) {
        var o = el("option", {value: k, text: k});
        if (k === state.kind) { o.selected = true; }
        kind.appendChild(o);
      });
      kind.onchange = function () { state.kind = kind.value; renderBoard(); };
      box.appendChild(el("label", {text: "Interval "}, [kind]));
    }
    var lvl = Math.round(100 * (data.level > 1 ? data.level / 100 : data.level));
    box.appendChild(el("span", {
      id: "interval-note",
      text: state.kind ? "Bars: " + lvl + "% " + state.kind + " interval (0\u2013100 scale)." : ""
    }));
  }

  function bar(est) {
    var box = el("span", {"class": "bar"});
    var iv = interval(est);
    if (iv && iv.low !== null && iv.high !== null) {
      box.appendChild(el("span", {"class": "ci",
        style: "left:" + iv.low + "%;width:" + Math.max(iv.high - iv.low, 0.5) + "%",
        title: state.kind + " interval " + ivText(iv)}));
    }
    if (est && est.value !== null) {
      box.appendChild(el("span", {"class": "pt", style: "left:" + est.value + "%"}));
    }
    return box;
  }

  function sortedRows() {
    var rows = dataset().rows.filter(function (r) {
      if (!r.cells[state.subset]) { return false; }
      return Object.keys(state.filters).every(function (name) {
        return !state.filters[name] || r.filters[name] === state.filters[name];
      });
    });
    if (state.sortKey === null) { return rows; }
    var key = state.sortKey, dir = state.sortDir, at = data.identity.indexOf(key);
    return rows.slice().sort(function (a, b) {
      var x, y;
      if (at >= 0 || key === "Setting") {
        x = at >= 0 ? a.identity[at] : a.setting; y = at >= 0 ? b.identity[at] : b.setting;
        if (!isNaN(x) && !isNaN(y) && x !== "" && y !== "") { return dir * (x - y); }
        return dir * x.localeCompare(y);
      }
      x = cellValue(a, key); y = cellValue(b, key);
      if (x === null && y === null) { return 0; }
      if (x === null) { return 1; }
      if (y === null) { return -1; }
      return dir * (x - y);
    });
  }

  function renderBoard() {
    var board = document.getElementById("board");
    board.textContent = "";
    var texts = data.identity.concat(["Setting"]);
    var head = texts.concat(["n", "Q"]).concat(data.columns);
    var tr = el("tr");
    head.forEach(function (h) {
      var th = el("th", {text: h, "data-key": h});
      var isText = texts.indexOf(h) >= 0;
      if (isText) { th.className = "text"; }
      if (state.sortKey === h) { th.className += state.sortDir > 0 ? " sorted-asc" : " sorted-desc"; }
      th.onclick = function () {
        state.sortDir = state.sortKey === h ? -state.sortDir : (isText ? 1 : -1);
        state.sortKey = h;
        renderBoard();
      };
      tr.appendChild(th);
    });
    var table = el("table", {id: "leaderboard"}, [el("thead", {}, [tr])]);
    board.appendChild(el("p", {id: "row-count", text: sortedRows().length + " of " +
      dataset().rows.length + " rows"}));
    var body = el("tbody");
    var shown = {};  // the marks the board shows: only their notes go under it
    sortedRows().forEach(function (row) {
      var cell = row.cells[state.subset];
      var name = el("td", {"class": "text model", text: row.model, title: "show the verdicts behind these numbers"});
      if (row.warnings.length) {
        name.appendChild(el("span", {"class": "warn", text: "\u26A0", title: row.warnings.join("\n")}));
      }
      name.onclick = function () { openDetail(row); };
      var cells = [name];
      row.identity.slice(1).forEach(function (v) { cells.push(el("td", {"class": "text", text: v})); });
      cells.push(el("td", {"class": "text", text: row.setting}));
      cells.push(el("td", {text: String(row.n)}), el("td", {text: String(cell.questions)}));
      data.columns.forEach(function (c) {
        var est = cell.values[c];
        var td = el("td", {"data-key": c, text: fmt(est ? est.value : null)});
        var iv = interval(est);
        if (iv) {
          td.title = state.kind + " interval " + ivText(iv);
          if (iv.status in {posterior: 1, wide: 1, unreliable: 1}) { td.className = iv.status; }
          if (iv.status === "no width") { td.appendChild(el("span", {text: " [no width]"})); }
          if (iv.status === "n < 2k") { td.appendChild(el("span", {text: " [n<2k]"})); }
          shown[iv.status] = true;
        }
        td.appendChild(bar(est));
        cells.push(td);
      });
      body.appendChild(el("tr", {"data-label": row.label}, cells));
    });
    table.appendChild(body);
    board.appendChild(el("div", {"class": "scroll"}, [table]));
    var notes = [];  // under the board: the header stays one line
    if (shown.posterior) { notes.push("* = " + data.posterior_note + "."); }
    if (shown.wide) { notes.push("+ = " + data.wide_note + "."); }
    if (shown.unreliable) { notes.push("! = " + data.unreliable_note + "."); }
    if (shown["no width"]) { notes.push("[no width] = " + data.no_width_note[state.kind] + "."); }
    if (shown["n < 2k"]) { notes.push("[n<2k] = " + data.short_note + "."); }
    if (notes.length) {  // only the marks a cell shows
      board.appendChild(el("p", {id: "marks-note", text: notes.join(" ")}));
    }
  }

  function verdictText(v) {
    if (v === true) { return el("span", {"class": "ok", text: "\u2713 correct"}); }
    if (v === false) { return el("span", {"class": "bad", text: "\u2717 wrong"}); }
    return el("span", {"class": "unk", text: "? unjudged"});
  }

  function loadDrill(row, done, fail) {
    if (drills[row.drill]) { done(drills[row.drill]); return; }
    if (!data.drill) { fail("this page was written without its drill-down files (printed to " +
      "stdout); write it with --out PAGE.html to get them beside it"); return; }
    var src = data.drill + "/row-" + row.drill + ".js";
    waiting[row.drill] = done;
    var tag = el("script", {src: src});
    tag.onerror = function () {
      delete waiting[row.drill];
      fail("the drill-down file " + src + " is missing: keep the folder " + data.drill +
        " next to this page (gpassk-oc report --format html --out writes both)");
    };
    document.body.appendChild(tag);
  }

  function openDetail(row) {
    var box = document.getElementById("detail");
    box.textContent = "";
    box.hidden = false;
    var close = el("button", {id: "close-detail", text: "close"});
    close.onclick = function () { box.hidden = true; };
    box.appendChild(el("h2", {text: "Verdicts behind " + row.label + " (" + state.subset + ")"}, []));
    box.appendChild(close);
    var wait = el("p", {id: "drill-loading", text: "loading the verdicts…"});
    box.appendChild(wait);
    box.scrollIntoView();
    loadDrill(row, function (drill) {
      if (wait.parentNode) { box.removeChild(wait); }
      showQuestions(box, drill);
    }, function (why) {
      if (wait.parentNode) { box.removeChild(wait); }
      box.appendChild(el("p", {id: "drill-missing", text: "Per-sample verdicts unavailable: " + why}));
    });
  }

  function inView(q) { return state.subset === "overall" || q.subset === state.subset; }

  function csvCell(v) {
    var t = v === null || v === undefined ? "" : String(v);
    return /[",\r\n]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  }

  // a question's samples run by run, each [answer, found, verdict, decided by, run code,
  // finish reason, output tokens] (drilldown.py stores them per run as columns: [run code,
  // answers, found, verdicts, by] and, where the run's file records them, [reasons, tokens])
  function samplesOf(q, drill) {
    var out = [];
    q.runs.forEach(function (p) {
      var run = drill.runs[p[0]];
      for (var i = 0; i < p[1].length; i++) {
        out.push([p[1][i], run.found[p[2][i]], p[3][i], run.by[p[4][i]], p[0],
                  p[5] ? p[5][i] : null, p[6] ? p[6][i] : null]);
      }
    });
    return out;
  }

  // each run's output-token statistics (token_stats.py), for the runs that recorded counts
  function tokenTable(drill) {
    var runs = drill.runs.filter(function (r) { return r.tokens; });
    if (!runs.length) { return null; }
    var num = function (v) { return v === null || v === undefined ? "\u2013" : String(Math.round(v * 10) / 10); };
    var heads = ["run", "samples counted", "mean", "median", "p95", "max", "cut by the limit",
                 "tokens per correct sample"];
    var table = el("table", {id: "drill-tokens"}, [el("tr", {}, heads.map(function (h) {
      return el("th", {"class": "text", text: h}); }))]);
    runs.forEach(function (r) {
      var t = r.tokens, share = t.at_limit_share;
      var cut = share === null ? "\u2013" : t.at_limit + " (" + (100 * share).toFixed(1) + "%)";
      table.appendChild(el("tr", {}, [el("td", {"class": "text", text: r.model}),
        el("td", {text: String(t.counted)}), el("td", {text: num(t.mean)}),
        el("td", {text: num(t.median)}), el("td", {text: String(t.p95)}),
        el("td", {text: String(t.max)}), el("td", {text: cut}), el("td", {text: num(t.per_correct)})]));
    });
    return el("div", {"class": "scroll"}, [el("h3", {text: "Output tokens"}), table]);
  }

  // every judged sample of the questions in view, as `gpassk-oc audit` writes its sheet
  // (sample id model/dataset/[group/]index/replica; the reply's end is not in the drill files)
  function auditSheet(drill) {
    var lines = [data.sheet_columns.map(csvCell).join(",")];
    drill.questions.filter(inView).forEach(function (q) {
      var replica = {};
      samplesOf(q, drill).forEach(function (s) {
        var r = replica[s[4]] = (replica[s[4]] === undefined ? 0 : replica[s[4]] + 1);
        if (s[2] !== true && s[2] !== false) { return; }
        var model = drill.runs[s[4]].model;
        var ix = q.ixr && q.ixr[s[4]] !== undefined ? q.ixr[s[4]] : q.ix;
        var rec = {
          sample_id: [model, drill.dataset].concat(q.g ? [q.g] : [], [ix, r]).join("/"),
          model: model, dataset: drill.dataset, question_index: ix, replica: r,
          source: s[3] || "unknown", verdict: s[2] ? "correct" : "wrong",
          question: q.question, gold: q.gold, extracted: s[0], reply_end: "", label: ""};
        lines.push(data.sheet_columns.map(function (c) { return csvCell(rec[c]); }).join(","));
      });
    });
    return lines.join("\n") + "\n";
  }

  var EXPORT_HINT = "Opened in a spreadsheet, a CSV's cells are parsed (an answer 1/2 may " +
    "show as a date, 007 as 7, =1+1 as 2): to label in Excel or LibreOffice, write the " +
    "sheet with `gpassk-oc audit WORK_DIR --size N -o SHEET.xlsx`, which shows every " +
    "answer as written.";

  function exportSheet(drill) {
    // a byte-order mark first, as `gpassk-oc audit` writes: Excel then reads UTF-8
    var blob = new Blob(["\ufeff" + auditSheet(drill)], {type: "text/csv"});
    var name = "audit-" + drill.label.replace(/[^A-Za-z0-9._-]+/g, "_") + ".csv";
    var link = el("a", {href: URL.createObjectURL(blob), download: name});
    document.body.appendChild(link);
    link.click();
    document.body.removeChild(link);
  }

  function showQuestions(box, drill) {
    (drill.problems || []).forEach(function (t) { box.appendChild(el("p", {"class": "bad", text: t})); });
    var exp = el("button", {id: "export-audit", text: "Export audit sheet (CSV)"});
    exp.onclick = function () { exportSheet(drill); };
    box.appendChild(exp);
    // a spreadsheet parses a CSV's cells: the auditor would judge another value
    box.appendChild(el("p", {id: "export-hint", "class": "unk", text: EXPORT_HINT}));
    var tokens = tokenTable(drill);
    if (tokens) { box.appendChild(tokens); }
    var table = el("table", {id: "questions"});
    table.appendChild(el("tr", {}, ["question", "c / n", "gold", "text"].map(function (h) {
      return el("th", {"class": "text", text: h});
    })));
    drill.questions.filter(inView).forEach(function (q) {
      var tr = el("tr", {"class": "q", "data-question": q.id}, [
        el("td", {"class": "text", text: q.id}), el("td", {text: q.c + " / " + q.n}),
        el("td", {"class": "text", text: q.gold === null ? "" : q.gold}),
        el("td", {"class": "text", text: (q.question || "").slice(0, 120)})]);
      tr.onclick = function () { toggleSamples(tr, q, drill); };
      table.appendChild(tr);
    });
    box.appendChild(el("div", {"class": "scroll"}, [table]));
  }

  function toggleSamples(tr, q, drill) {
    var next = tr.nextSibling;
    if (next && next.className === "samples") { next.parentNode.removeChild(next); return; }
    var inner = el("table", {"class": "sample-table"});
    var samples = samplesOf(q, drill);
    // finish reason and output tokens: columns only where some run recorded them
    var facts = samples.some(function (s) { return s[5] !== null || s[6] !== null; });
    var heads = ["#", "extracted answer", "found", "verdict", "decided by", "run"];
    inner.appendChild(el("tr", {}, heads.concat(facts ? ["finish", "output tokens"] : []).map(
      function (h) { return el("th", {"class": "text", text: h}); })));
    samples.forEach(function (s, i) {
      var cells = [
        el("td", {text: String(i + 1)}),
        el("td", {"class": "answer", text: s[0] === null ? "(none)" : s[0]}),
        el("td", {"class": "text", text: s[1] || "\u2013"}),
        el("td", {"class": "text"}, [verdictText(s[2])]),
        el("td", {"class": "text", text: s[3] || "\u2013"}),
        el("td", {"class": "text", text: drill.runs[s[4]].model})];
      if (facts) {
        cells.push(el("td", {"class": "text finish", text: s[5] || "\u2013"}));
        cells.push(el("td", {"class": "tokens", text: s[6] === null ? "\u2013" : String(s[6])}));
      }
      inner.appendChild(el("tr", {"class": "sample"}, cells));
    });
    var holder = el("tr", {"class": "samples"}, [el("td", {colspan: "4", "class": "text"}, [inner])]);
    tr.parentNode.insertBefore(holder, tr.nextSibling);
  }

  function renderWarnings() {
    var box = document.getElementById("warnings");
    box.textContent = "";
    var items = [];
    dataset().rows.forEach(function (row) {
      row.warnings.forEach(function (w) { items.push(row.label + ": " + w); });
    });
    if (!items.length) { return; }
    // many rows, many warnings: folded under a count so the leaderboard stays in view
    var fold = el("details", {}, [el("summary", {text: "Warnings (" + items.length + ")"})]);
    if (items.length <= 5) { fold.open = true; }
    fold.appendChild(el("ul", {}, items.map(function (t) { return el("li", {text: t}); })));
    box.appendChild(fold);
  }

  function renderNotes() {
    var box = document.getElementById("notes");
    box.textContent = "";
    if (!data.notes.length) { return; }
    box.appendChild(el("h2", {text: "Notes"}));
    box.appendChild(el("ul", {}, data.notes.map(function (t) { return el("li", {text: t}); })));
  }

  function render() {
    renderControls();
    renderWarnings();
    renderBoard();
    renderNotes();
    document.getElementById("detail").hidden = true;
  }
  render();
})();
"""
