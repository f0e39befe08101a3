// The class's part of the notebook page: each exercise's file edited in
// the page (the student's copy on the server), Save, Submit with its
// feedback and history, the place of the student's runs in the class's
// queue, and sign-out. Requests go with the session's cookie
// (SameSite=Strict, HttpOnly) and this page's Origin.
(function () {
  "use strict";
  var api = "/_class/api/";
  // The page's helpers, serve's dom.js, loaded before this script.
  var el = window.lessonsDOM.el, button = window.lessonsDOM.button, json = window.lessonsDOM.json;
  function post(op, body) {
    return fetch(api + op, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }).then(json);
  }
  function get(op, q) {
    return fetch(api + op + (q ? "?" + q : "")).then(json);
  }

  // The bar is the first thing of the page, in its flow: fixed over the
  // corner it covered the theme button on a desktop and the menu and the
  // title on a phone. The page's colours (both themes) through its
  // variables.
  var style = document.createElement("style");
  style.textContent = ".class-bar{display:flex;flex-wrap:wrap;gap:.3rem .6rem;align-items:center;padding:.3rem 1rem;font:13px/1.4 system-ui,sans-serif;" +
    "color:var(--fg,#222);background:var(--panel,#f4f4f4);border-bottom:1px solid var(--line,#ccc)}" +
    ".class-bar button{font:inherit;color:var(--fg,#222);background:var(--bg,#fff);border:1px solid var(--line,#ccc);border-radius:6px;padding:.1rem .5rem;cursor:pointer}" +
    ".class-bar .class-token{flex-basis:100%;overflow-wrap:anywhere}.class-bar .class-token:empty{display:none}" +
    ".class-feedback{margin:.5rem 0;padding:.2rem 1rem;border:1px solid var(--line,#ccc);border-radius:6px;overflow-x:auto}" +
    ".class-feedback table{border-collapse:collapse}.class-feedback td,.class-feedback th{border:1px solid var(--line,#ccc);padding:.1rem .5rem}" +
    ".class-feedback blockquote{border-left:4px solid #e0a800;margin:0;padding:.1rem .8rem}" +
    ".class-feedback h1{font-size:1.25rem}.class-feedback h2{font-size:1.1rem}.class-feedback ul{padding-left:1.4rem!important}" +
    "textarea.class-file{color:var(--fg,#222);background:var(--bg,#fff);border:1px solid var(--line,#ccc);border-radius:6px;box-sizing:border-box}";
  document.head.appendChild(style);
  var bar = el("div", "class-bar");
  var who = el("span", "class-who", "");
  var queue = el("span", "class-queue", "");
  bar.appendChild(who); bar.appendChild(document.createTextNode(" · ")); bar.appendChild(queue);
  var tokenOut = el("code", "class-token", "");
  bar.appendChild(button("Token for lessons submit", "class-token-button", function () {
    post("token", {}).then(function (r) {
      tokenOut.textContent = " LESSONS_CLASS_SERVER=" + location.origin + " LESSONS_CLASS_TOKEN=" + r.token + " lessons submit EXERCISE FILE ";
    }, function (e) { tokenOut.textContent = " ✗ " + e.message; });
  }));
  bar.appendChild(tokenOut);
  bar.appendChild(button("Sign out", "class-signout", function () {
    post("../signout", {}).then(function () { location.href = "/"; });
  }));
  document.body.insertBefore(bar, document.body.firstChild);
  get("me").then(function (m) { who.textContent = (m.name || m.id); }, function () {});

  function showQueue() {
    get("queue").then(function (q) {
      if (q.place > 0) queue.textContent = "queue: place " + q.place + " (about " + Math.ceil(q.estimateMS / 1000) + " s)";
      else if (q.running > 0) queue.textContent = "running";
      else queue.textContent = "no run waiting";
    }, function () {});
  }
  showQueue();
  setInterval(showQueue, 2000);

  // Each exercise of the page gets its file, Save and Submit.
  // browserAdvice replaces the site's words for a terminal ("edit FILE,
  // then run lessons check ID") with what the student does here.
  function browserAdvice(li) {
    var nodes = Array.prototype.slice.call(li.childNodes);
    var i = nodes.indexOf(li.querySelector("strong.exercise-id")) + 1;
    if (i <= 0) return;
    for (; i < nodes.length && (nodes[i].nodeType === 3 || nodes[i].nodeName === "CODE"); i++) li.removeChild(nodes[i]);
    li.insertBefore(document.createTextNode(": edit its file below. Save keeps it, Check runs its checks on the class's GPUs, Submit hands it in for a grade. "), nodes[i] || null);
  }
  function decorate(li) {
    if (li.dataset.classReady) return;
    li.dataset.classReady = "1";
    browserAdvice(li);
    var id = li.dataset.exercise;
    var box = el("div", "class-exercise");
    var ta = el("textarea", "class-file");
    ta.rows = 16; ta.cols = 90; ta.spellcheck = false;
    ta.style.cssText = "display:block;width:100%;font-family:monospace";
    var saved = el("span", "class-saved", "");
    var feedback = el("div", "class-feedback");
    feedback.hidden = true;
    function save() {
      saved.textContent = "saving…";
      return post("file", { exercise: id, text: ta.value }).then(function () { saved.textContent = "saved"; },
        function (e) { saved.textContent = "not saved: " + e.message; throw e; });
    }
    var dirty = null;
    ta.addEventListener("input", function () { saved.textContent = "edited"; clearTimeout(dirty); dirty = setTimeout(save, 800); });
    box.appendChild(ta);
    box.appendChild(button("Save", "class-save", save));
    var sub = button("Submit", "class-submit", function () {
      sub.disabled = true;
      feedback.hidden = false;
      feedback.textContent = "submitting… (graded with the hidden checks too)";
      clearTimeout(dirty);
      post("submit", { exercise: id, text: ta.value }).then(function (r) {
        saved.textContent = "saved";
        // The feedback as HTML that the server made from its markdown
        // (text escaped, raw HTML left out), under a line of its own.
        feedback.textContent = "";
        feedback.appendChild(el("p", "class-submitted", "Submitted (#" + r.attempt + "): " + r.status + ", " + r.points + " of " + r.max + " points"));
        var body = el("div", "class-feedback-body");
        body.innerHTML = r.feedbackHTML || "";
        feedback.appendChild(body);
        feedback.dataset.status = r.status;
      }, function (e) { feedback.textContent = "✗ " + e.message; }).then(function () { sub.disabled = false; });
    });
    box.appendChild(sub);
    box.appendChild(saved);
    box.appendChild(feedback);
    // The page's Check checks the saved copy: save first.
    var check = li.querySelector("button.check");
    if (check) check.addEventListener("click", function () { clearTimeout(dirty); }, true);
    li.insertBefore(box, li.querySelector(".verdict"));
    get("file", "exercise=" + encodeURIComponent(id)).then(function (f) { ta.value = f.text; ta.dataset.loaded = "1"; },
      function (e) { saved.textContent = "✗ " + e.message; });
  }
  new MutationObserver(function () {
    document.querySelectorAll("li.exercise[data-exercise]").forEach(decorate);
  }).observe(document.body, { childList: true, subtree: true });
  document.querySelectorAll("li.exercise[data-exercise]").forEach(decorate);
})();
