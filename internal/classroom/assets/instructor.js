// The instructor's view: the class's table and queue, asked for again
// every two seconds, and a student's current file on request.
(function () {
  "use strict";
  var table = document.getElementById("class"), queue = document.getElementById("queue");
  function td(tr, text, cls) { var c = document.createElement("td"); c.textContent = text; if (cls) c.className = cls; tr.appendChild(c); }
  function show(st) {
    var q = st.queue, busy = Object.keys(q.busy).map(function (d) { return "GPU " + d + ": " + q.busy[d] + " running"; });
    var waiting = Object.values(q.waiting).reduce(function (a, b) { return a + b; }, 0);
    queue.textContent = busy.join(", ") + " · " + waiting + " waiting · " + q.started + " runs so far · mean run " + Math.round(q.meanRunNS / 1e6) + " ms" +
      (st.workers && st.workers.length ? " · nodes: " + st.workers.join("; ") : "");
    table.textContent = "";
    var head = document.createElement("tr");
    ["student", "last activity"].concat(st.exercises).concat(["queue", "GPU s (hour)"]).forEach(function (h) {
      var th = document.createElement("th"); th.textContent = h; head.appendChild(th);
    });
    table.appendChild(head);
    st.students.forEach(function (s) {
      var tr = document.createElement("tr");
      tr.dataset.student = s.id;
      td(tr, s.id + (s.name ? " (" + s.name + ")" : ""));
      td(tr, s.last && s.last[0] !== "0" ? new Date(s.last).toLocaleTimeString() + " " + s.what : "—");
      st.exercises.forEach(function (x) {
        var sub = s.submitted[x], chk = s.checks[x];
        var text = sub ? "submitted: " + sub : chk ? "checked: " + chk : "—";
        td(tr, text, (sub || chk || "").split(" ")[0]);
      });
      td(tr, s.waiting + " waiting, " + s.running + " running");
      td(tr, (s.gpuHourMS / 1000).toFixed(1));
      table.appendChild(tr);
    });
  }
  function tick() { fetch("/_class/instructor/state").then(function (r) { return r.json(); }).then(show, function () {}); }
  tick();
  setInterval(tick, 2000);
  document.getElementById("look").addEventListener("submit", function (e) {
    e.preventDefault();
    var f = new FormData(e.target);
    fetch("/_class/instructor/file?student=" + encodeURIComponent(f.get("student")) + "&exercise=" + encodeURIComponent(f.get("exercise")))
      .then(function (r) { return r.json(); }).then(function (j) { document.getElementById("file").textContent = j.text || j.error; });
  });
})();
// Which submission counts: the student's history, and the choice.
(function () {
  "use strict";
  var form = document.getElementById("count"), out = document.getElementById("history");
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var f = new FormData(form);
    fetch("/_class/instructor/count", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ student: f.get("student"), exercise: f.get("exercise"), attempt: Number(f.get("attempt") || 0) }) })
      .then(function (r) { return r.json(); })
      .then(function (j) { out.textContent = j.error ? "✗ " + j.error : "counted"; });
  });
  form.querySelector('[name="exercise"]').addEventListener("change", function () {
    var f = new FormData(form);
    fetch("/_class/instructor/history?student=" + encodeURIComponent(f.get("student")) + "&exercise=" + encodeURIComponent(f.get("exercise")))
      .then(function (r) { return r.json(); }).then(function (h) {
        out.textContent = Array.isArray(h) ? h.map(function (a) { return "#" + a.id + " " + a.status + " " + a.points + "/" + a.max + " " + a.at; }).join("\n") : h.error;
      });
  });
})();
