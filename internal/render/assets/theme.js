// The theme is set before the page is drawn: the reader's choice, kept in
// localStorage, else the system's.
(function () {
  var t = null;
  try { t = localStorage.getItem("lessons-theme"); } catch (e) {}
  if (t !== "light" && t !== "dark") {
    t = window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  document.documentElement.setAttribute("data-theme", t);
})();
