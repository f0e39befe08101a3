// The site's own script: the theme switch, the sidebar on narrow screens,
// copy buttons on code and search over window.lessonsSearchIndex (written
// by export as search-index.js). Nothing here reaches the network.
(function () {
  "use strict";
  var root = document.documentElement;

  // Theme: the switch flips it and remembers the choice.
  var themeButton = document.getElementById("theme-toggle");
  if (themeButton) {
    themeButton.addEventListener("click", function () {
      var t = root.getAttribute("data-theme") === "dark" ? "light" : "dark";
      root.setAttribute("data-theme", t);
      try { localStorage.setItem("lessons-theme", t); } catch (e) {}
    });
  }

  // Sidebar: hidden behind a button on narrow screens.
  var tocButton = document.getElementById("toc-toggle");
  if (tocButton) {
    tocButton.addEventListener("click", function () {
      var open = document.body.classList.toggle("toc-open");
      tocButton.setAttribute("aria-expanded", open ? "true" : "false");
    });
  }

  // Copy buttons. window.lessonsLastCopy keeps what was copied last, for
  // tests and for browsers that refuse the clipboard (file:// pages).
  function copyText(text, done) {
    window.lessonsLastCopy = text;
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallback(text)); });
    } else {
      done(fallback(text));
    }
  }
  function fallback(text) {
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) {}
    document.body.removeChild(ta);
    return ok;
  }
  document.querySelectorAll(".cell pre").forEach(function (pre) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "copy";
    b.textContent = "Copy";
    b.setAttribute("aria-label", "Copy this code");
    b.addEventListener("click", function () {
      copyText(pre.innerText.replace(/\n$/, ""), function (ok) {
        b.textContent = ok ? "Copied" : "Select and copy";
        setTimeout(function () { b.textContent = "Copy"; }, 1500);
      });
    });
    pre.parentNode.insertBefore(b, pre);
  });

  // Search: every word of the query must appear in a section; sections
  // whose title holds a word come first.
  var input = document.getElementById("search");
  var out = document.getElementById("search-results");
  if (!input || !out) { return; }
  function escapeHTML(s) {
    return s.replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }
  function search(q) {
    var words = q.toLowerCase().split(/\s+/).filter(Boolean);
    var index = window.lessonsSearchIndex || [];
    if (!words.length) { return []; }
    var hits = [];
    index.forEach(function (s) {
      var title = s.t.toLowerCase(), text = (s.x || "").toLowerCase(), score = 0;
      for (var i = 0; i < words.length; i++) {
        var inTitle = title.indexOf(words[i]) >= 0;
        if (!inTitle && text.indexOf(words[i]) < 0) { return; }
        score += inTitle ? 10 : 1;
      }
      var at = text.indexOf(words[0]);
      var snippet = at < 0 ? (s.x || "").slice(0, 120) : (at > 40 ? "…" : "") + (s.x || "").slice(Math.max(0, at - 40), at + 80) + "…";
      hits.push({ s: s, score: score, snippet: snippet });
    });
    hits.sort(function (a, b) { return b.score - a.score; });
    return hits.slice(0, 20);
  }
  window.lessonsSearch = search;
  input.addEventListener("input", function () {
    var hits = search(input.value);
    if (!input.value.trim()) { out.innerHTML = ""; return; }
    if (!hits.length) { out.innerHTML = '<p class="none">No section has all of these words.</p>'; return; }
    out.innerHTML = "<ol>" + hits.map(function (h) {
      return '<li><a href="' + escapeHTML(h.s.u) + '">' + escapeHTML(h.s.t) + "</a><p>" + escapeHTML(h.snippet) + "</p></li>";
    }).join("") + "</ol>";
  });
})();
