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

  var bar = el("div", "class-bar");
  bar.style.cssText = "position:fixed;top:0;right:0;background:#f4f4f4;border:1px solid #ccc;padding:4px 8px;font:13px sans-serif;z-index:10";
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
  document.body.appendChild(bar);
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
  function decorate(li) {
    if (li.dataset.classReady) return;
    li.dataset.classReady = "1";
    var id = li.dataset.exercise;
    var box = el("div", "class-exercise");
    var ta = el("textarea", "class-file");
    ta.rows = 16; ta.cols = 90; ta.spellcheck = false;
    ta.style.cssText = "display:block;width:100%;font-family:monospace";
    var saved = el("span", "class-saved", "");
    var feedback = el("pre", "class-feedback");
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
        feedback.textContent = "Submitted (#" + r.attempt + "): " + r.status + ", " + r.points + " of " + r.max + " points\n\n" + r.feedback;
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
