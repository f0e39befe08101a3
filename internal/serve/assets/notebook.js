// The notebook of a served lesson page: Run under each runnable cell, Run
// all, Stop, Restart and the Timelines toggle, file cells edited in place (kept in the
// workspace, never in the lesson), and the lesson's exercises with Check.
// Every request carries the server's token in a header (never a cookie).
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="lessons-token"]');
  if (!meta) return;
  var token = meta.content;
  var page = decodeURIComponent(location.pathname.replace(/^.*\//, "").replace(/\.html$/, ""));
  var session = Math.random().toString(36).slice(2) + Date.now().toString(36);
  var api = "/_lessons/api/";
  var cells = {}; // number -> {el, state, out, status, editor}
  var stopping = false;

  // Links keep the token through the page's first script (serve.go's
  // keepToken), which also runs where no notebook is attached.

  function post(op, body) {
    body.page = page; body.session = session;
    return fetch(api + op, {
      method: "POST", headers: { "Content-Type": "application/json", "X-Lessons-Token": token },
      body: JSON.stringify(body)
    });
  }
  function get(op) {
    return fetch(api + op + "?page=" + encodeURIComponent(page), { headers: { "X-Lessons-Token": token } })
      .then(function (r) { return r.json(); });
  }
  var el = window.lessonsDOM.el, button = window.lessonsDOM.button;

  // The code of a cell shown with one span a line, so that a line can be
  // marked.
  function showCode(c, text) {
    var code = c.el.querySelector("pre code") || c.el.querySelector("pre");
    code.textContent = "";
    text.replace(/\n$/, "").split("\n").forEach(function (line) {
      var s = el("span", "line");
      s.appendChild(el("span", "cl", line + "\n"));
      code.appendChild(s);
    });
  }
  function unmark(c) {
    c.el.querySelectorAll(".error-line").forEach(function (l) { l.classList.remove("error-line"); });
    c.markedBy = 0;
  }
  // markLine marks line of cell n, for the run of cell by.
  function markLine(n, line, reason, by) {
    var c = cells[n];
    if (!c) return;
    c.markedBy = by;
    closeEditor(c);
    var lines = c.el.querySelectorAll("pre .line");
    var l = lines[line - 1];
    if (l) { l.classList.add("error-line"); l.title = reason; }
  }

  function openEditor(c) {
    if (c.editor) return;
    var pre = c.el.querySelector("pre");
    var ta = el("textarea", "cell-editor");
    ta.value = c.state.text.replace(/\n$/, "");
    ta.spellcheck = false;
    ta.wrap = "off"; // code is not soft-wrapped: a long line scrolls
    ta.rows = Math.min(40, ta.value.split("\n").length + 1);
    var timer = null;
    ta.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { save(c); }, 300);
    });
    ta.addEventListener("keydown", function (e) {
      if (e.key === "Tab" && !e.shiftKey) {
        e.preventDefault();
        var s = ta.selectionStart;
        ta.setRangeText("    ", s, ta.selectionEnd, "end");
        ta.dispatchEvent(new Event("input"));
      } else if (e.key === "Enter" && (e.ctrlKey || e.shiftKey)) {
        e.preventDefault();
        runCell(c.state.cell);
      } else if (e.key === "Escape") {
        closeEditor(c);
      }
    });
    pre.style.display = "none";
    pre.parentNode.insertBefore(ta, pre.nextSibling);
    c.editor = ta;
    ta.focus();
  }
  // save sends the editor's text, after any edit still on its way; the
  // promise ends when the workspace has it.
  function save(c) {
    if (c.editor) {
      var text = c.editor.value + "\n";
      if (text !== c.state.text) {
        c.state.text = text;
        c.state.edited = true;
        c.badge.hidden = false;
        c.saving = (c.saving || Promise.resolve()).then(function () {
          return post("edit", { cell: c.state.cell, text: text });
        });
      }
    }
    return c.saving || Promise.resolve();
  }
  function closeEditor(c) {
    if (!c.editor) return;
    save(c);
    showCode(c, c.state.text);
    c.el.querySelector("pre").style.display = "";
    c.editor.remove();
    c.editor = null;
  }

  function setStatus(c, cls, text) {
    c.status.className = "cell-status " + cls;
    c.status.textContent = text;
  }

  // runCell runs a cell and shows its output as it comes; it resolves to
  // the end event.
  function runCell(n) {
    var c = cells[n];
    // Every edit open goes to the workspace first: the cell may build
    // another cell's file.
    var ready = Promise.all(Object.keys(cells).map(function (k) { return save(cells[k]); }));
    if (c.editor) closeEditor(c);
    // A mark goes when the cell marked, or the cell whose run marked it,
    // runs again.
    Object.keys(cells).forEach(function (k) {
      if (Number(k) === n || cells[k].markedBy === n) unmark(cells[k]);
    });
    c.out.textContent = ""; c.out.pendingCR = false;
    c.out.hidden = false;
    c.pics.textContent = "";
    setStatus(c, "running", "running…");
    var t0 = performance.now();
    return ready.then(function () { return post("run", { cell: n, timeline: timelines() }); }).then(function (res) {
      if (!res.ok) return res.json().then(function (e) { throw new Error(e.error || res.statusText); });
      var reader = res.body.getReader();
      var dec = new TextDecoder();
      var buf = "";
      var end = null;
      function pump() {
        return reader.read().then(function (r) {
          if (r.done) return end;
          buf += dec.decode(r.value, { stream: true });
          var i;
          while ((i = buf.indexOf("\n")) >= 0) {
            var ev = JSON.parse(buf.slice(0, i));
            buf = buf.slice(i + 1);
            if (ev.event === "waiting") setStatus(c, "running", "waiting: " + ev.text + "…");
            if (ev.event === "start") setStatus(c, "running", "running…");
            // a terminal's escapes (colours, pip's cursor) are no text for a page
            if (ev.event === "output") write(c.out, ev.text.replace(/\x1b\[[0-?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -\/]*[0-~]/g, ""));
            if (ev.event === "image" && /^data:image\/(png|jpeg|gif);base64,[A-Za-z0-9+\/=]*$/.test(ev.text)) {
              const img = document.createElement("img");
              img.src = ev.text;
              img.alt = "an image cell [" + ev.cell + "] showed";
              c.out.appendChild(img);
            }
            // a command's timeline, under the cell's output (the pictures
            // are images: an image's SVG runs nothing), or why there is none
            if (ev.event === "timeline" && ev.timeline) c.pics.appendChild(timelineFigure(ev.timeline, "what " + ev.text + " did with the allocator"));
            if (ev.event === "timeline" && !ev.timeline) c.pics.appendChild(el("p", "timeline-none", "(" + ev.text + ")"));
            if (ev.event === "end") end = ev;
          }
          return pump();
        });
      }
      return pump();
    }).then(function (end) {
      c.out.hidden = c.out.textContent === "";
      if (!end) { setStatus(c, "failed", "✗ the run ended without a result"); return { status: "failed" }; }
      var t = ((end.ms || 0) / 1000).toFixed(2) + " s";
      var cache = end.builds > 0 && end.hits === end.builds ? " · from the cache" : "";
      if (end.status === "ok") setStatus(c, "ok", "✓ " + (end.reason || "ok") + " · " + t + cache);
      else if (end.status === "skipped") setStatus(c, "skipped", "– skipped: " + end.reason);
      else if (end.status === "stopped") setStatus(c, "stopped", "■ stopped · " + t);
      else setStatus(c, "failed", "✗ " + end.reason + " · " + t + cache);
      if (end.errorCell) markLine(end.errorCell, end.errorLine, end.reason, n);
      return end;
    }).catch(function (err) {
      setStatus(c, "failed", "✗ " + err.message);
      return { status: "failed" };
    });
  }

  // write adds a program's output as a terminal shows it: a carriage
  // return goes back to the start of the line (a progress bar's next
  // state replaces the last), a backspace takes back a character. A
  // return at the end of one piece waits for the next: "\r\n" split
  // between two pieces is one line end.
  function write(out, text) {
    if (out.pendingCR) { out.pendingCR = false; if (text[0] !== "\n") text = "\r" + text; }
    if (text.endsWith("\r")) { out.pendingCR = true; text = text.slice(0, -1); }
    text.replace(/\r\n/g, "\n").split(/(\r|\x08)/).forEach(function (part) {
      var last = out.lastChild, node = last && last.nodeType === Node.TEXT_NODE ? last : null;
      if (part === "\r") { if (node) node.data = node.data.slice(0, node.data.lastIndexOf("\n") + 1); return; }
      if (part === "\x08") { if (node && node.data !== "" && !node.data.endsWith("\n")) node.data = node.data.slice(0, -1); return; }
      if (part === "") return;
      if (node) node.data += part; else out.appendChild(document.createTextNode(part));
    });
  }

  var canTrace = false;
  function timelines() { return canTrace && localStorage.getItem("lessons-timelines") === "1"; }

  function runAll() {
    stopping = false;
    var nums = Object.keys(cells).map(Number).sort(function (a, b) { return a - b; });
    var i = 0;
    function next() {
      if (i >= nums.length || stopping) return;
      return runCell(nums[i++]).then(function (end) {
        if (end.status === "ok" || end.status === "skipped") return next();
      });
    }
    return next();
  }

  // setup puts the notebook's bar and each cell's tools on the page; the
  // Timelines toggle only where the server can trace a cell's run.
  function setup(states, traces) {
    canTrace = traces;
    var bar = el("div", "notebook-bar");
    bar.appendChild(button("Run all", "run-all", runAll));
    bar.appendChild(button("Stop", "stop", function () { stopping = true; post("stop", {}); }));
    bar.appendChild(button("Restart", "restart", function () {
      stopping = true;
      post("restart", {}).then(function () {
        Object.keys(cells).forEach(function (k) {
          var c = cells[k];
          c.out.textContent = ""; c.out.hidden = true; c.pics.textContent = ""; setStatus(c, "", "");
        });
      });
    }));
    // Timelines: each run of a cell also draws what its CUDA programs did
    // with the allocator (kept for the next visit).
    var toggle = el("label", "timeline-toggle");
    var box = document.createElement("input");
    box.type = "checkbox";
    box.checked = timelines();
    box.addEventListener("change", function () { localStorage.setItem("lessons-timelines", box.checked ? "1" : ""); });
    toggle.appendChild(box);
    toggle.appendChild(document.createTextNode(" Timelines"));
    toggle.title = "under each cell's output, draw what its CUDA program did with the allocator: streams, allocations, kernels on the GPU, event waits, the pool's memory";
    if (traces) bar.appendChild(toggle);
    var main = document.querySelector("main") || document.body;
    main.insertBefore(bar, main.firstChild);
    states.forEach(function (st) {
      var node = document.querySelector('.cell[data-cell="' + st.cell + '"]');
      if (!node) return;
      var c = { el: node, state: st };
      cells[st.cell] = c;
      var tools = el("div", "cell-tools");
      tools.appendChild(button("Run", "run", function () { runCell(st.cell); }));
      c.status = el("span", "cell-status");
      if (st.kind === "file") {
        tools.appendChild(button("Edit", "edit", function () { openEditor(c); }));
        tools.appendChild(button("Reset cell", "reset", function () {
          post("reset", { cell: st.cell }).then(function (r) { return r.json(); }).then(function (r) {
            if (c.editor) { c.editor.remove(); c.editor = null; c.el.querySelector("pre").style.display = ""; }
            st.text = r.text; st.edited = false; c.badge.hidden = true;
            showCode(c, st.text);
          });
        }));
        c.badge = el("span", "edited", "edited");
        c.badge.hidden = !st.edited;
        tools.appendChild(c.badge);
        node.querySelector("pre").addEventListener("dblclick", function () { openEditor(c); });
        if (st.edited) showCode(c, st.text);
      }
      tools.appendChild(c.status);
      c.out = el("pre", "cell-output");
      c.out.hidden = true;
      c.pics = el("div", "cell-timelines");
      node.appendChild(tools);
      node.appendChild(c.out);
      node.appendChild(c.pics);
    });
  }

  // Exercises: listed with their status, checked from the page, and
  // updated when a verdict is pushed (a save in any editor).
  var exercises = {};
  function showVerdict(v) {
    var x = exercises[v.exercise];
    if (!x) return;
    x.verdict.textContent = "";
    x.verdict.hidden = false;
    if (v.error) {
      x.verdict.appendChild(el("p", "verdict-error", "Not checked: " + v.error));
      return;
    }
    x.mark.textContent = v.passed ? "✓" : "○";
    x.li.classList.toggle("passed", v.passed);
    var head = v.passed ? "Passed" : "Not yet passed";
    if (v.points) head += " · " + v.score + " of " + v.points + " points";
    if (v.trigger === "save") head += " (checked after a save)";
    x.verdict.appendChild(el("p", "verdict-head " + (v.passed ? "ok" : "failed"), head));
    var ul = el("ul", "checks");
    (v.checks || []).forEach(function (r) {
      var li = el("li", r.skipped ? "skipped" : r.pass ? "pass" : "fail");
      var mark = r.skipped ? "–" : r.pass ? "✓" : "✗";
      var name = mark + " " + r.name;
      if (r.points) name += " (" + (r.pass ? r.points : "0 of " + r.points) + " points)";
      li.appendChild(el("span", "check-name", name));
      if (!r.pass || r.skipped) {
        if (r.want) li.appendChild(el("div", "want", "expected: " + r.want));
        if (r.got) {
          li.appendChild(el("div", "want", r.skipped ? "skipped:" : "seen:"));
          li.appendChild(el("blockquote", "got", r.got));
        }
      }
      ul.appendChild(li);
    });
    x.verdict.appendChild(ul);
    if (v.hidden) x.verdict.appendChild(el("p", "hidden-checks", v.hidden + (v.hidden === 1 ? " hidden check also runs" : " hidden checks also run") + " when the exercise is graded."));
    (v.hints || []).forEach(function (h) { x.verdict.appendChild(el("p", "hint", "hint: " + h)); });
    if (v.output) {
      var d = el("details"); d.appendChild(el("summary", null, "output"));
      d.appendChild(el("pre", null, v.output)); x.verdict.appendChild(d);
    }
    if (v.timeline) x.verdict.appendChild(timelineFigure(v.timeline));
  }

  // The run's timeline: one picture per theme, as images (an image's SVG
  // runs nothing), the one of the page's theme shown (notebook.css).
  function timelineFigure(t, title) {
    var f = el("details", "timeline");
    f.open = true;
    f.appendChild(el("summary", null, title || "what the program did with the allocator"));
    ["light", "dark"].forEach(function (theme) {
      var img = document.createElement("img");
      img.className = "timeline-" + theme;
      img.alt = t.summary;
      img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(t[theme]);
      f.appendChild(img);
    });
    return f;
  }
  // setupExercises puts Check on the page's exercises: on the lesson's own
  // list of them (the site's box, with each one's file and hint) where
  // the page has one, so they are listed once; else in a list of its own.
  function setupExercises(list) {
    if (!list || !list.length) return;
    var sec = document.querySelector("section.exercises");
    var ul = sec && sec.querySelector("ul");
    if (!ul) {
      sec = el("section", "exercises");
      sec.appendChild(el("h2", null, "Exercises"));
      ul = el("ul");
      sec.appendChild(ul);
      (document.querySelector("main") || document.body).appendChild(sec);
    }
    sec.classList.add("notebook-exercises");
    list.forEach(function (x) {
      var li = null;
      ul.querySelectorAll("li[data-exercise]").forEach(function (l) { if (l.dataset.exercise === x.id) li = l; });
      if (!li) {
        li = el("li");
        li.dataset.exercise = x.id;
        li.appendChild(el("strong", "exercise-id", x.id));
        li.appendChild(document.createTextNode(": edit "));
        li.appendChild(el("code", null, x.student));
        ul.appendChild(li);
      }
      li.classList.add("exercise");
      if (x.passed) li.classList.add("passed");
      var mark = el("span", "mark", x.passed ? "✓" : "○");
      li.insertBefore(mark, li.firstChild);
      var verdict = el("div", "verdict");
      verdict.hidden = true;
      var b = button("Check", "check", function () {
        b.disabled = true;
        verdict.hidden = false;
        verdict.textContent = "checking…";
        post("check", { exercise: x.id }).then(function (r) { return r.json(); })
          .then(showVerdict, function (e) { verdict.textContent = "✗ " + e.message; })
          .then(function () { b.disabled = false; });
      });
      var details = li.querySelector("details");
      li.insertBefore(b, details);
      li.insertBefore(verdict, details);
      exercises[x.id] = { li: li, mark: mark, verdict: verdict };
    });
  }

  // One stream brings reloads and verdicts. A browser keeps six
  // connections to a server, for every tab together: a hidden page closes
  // its stream, and on coming back reloads if the site was rebuilt.
  var build = (document.querySelector('meta[name="lessons-build"]') || {}).content;
  var es = null;
  function listen() {
    if (es || document.visibilityState === "hidden") return;
    es = new EventSource(api + "events?token=" + encodeURIComponent(token));
    es.addEventListener("hello", function (m) { if (m.data !== build) location.reload(); });
    es.addEventListener("reload", function () { location.reload(); });
    es.addEventListener("verdict", function (m) { showVerdict(JSON.parse(m.data)); });
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden" && es) { es.close(); es = null; }
    listen();
  });
  listen();

  if (document.querySelector(".cell[data-cell]")) {
    fetch(api + "cells?page=" + encodeURIComponent(page), { headers: { "X-Lessons-Token": token } }).then(function (r) {
      var traces = r.headers.get("X-Lessons-Timelines") === "1";
      return r.json().then(function (s) { if (Array.isArray(s)) setup(s, traces); });
    });
  }
  get("exercises").then(function (l) { if (Array.isArray(l)) setupExercises(l); }, function () {});
  window.lessonsNotebook = { runCell: runCell, runAll: runAll, session: session };
})();
