// The page's small DOM helpers, one copy for every script of the page:
// the notebook's (notebook.js) and the class's (class.js), loaded after
// this one, take them from window.lessonsDOM.
(function () {
  "use strict";
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function button(label, cls, fn) {
    var b = el("button", cls, label);
    b.type = "button";
    b.addEventListener("click", fn);
    return b;
  }
  // json reads a fetch's answer as JSON, failing with the server's error.
  function json(r) {
    return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || r.statusText); return j; });
  }
  window.lessonsDOM = { el: el, button: button, json: json };
})();
