// A Reference section is folded into a closed <details> (docs/conf.py, FoldReference). When
// the address points into one — a link, the table of contents, a reload — open it, so that
// the browser can scroll to the target.
(function () {
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    var folded = target && target.closest("details.reference-section");
    if (folded && !folded.open) {
      folded.open = true;
      target.scrollIntoView();
    }
  }
  window.addEventListener("hashchange", openTarget);
  document.addEventListener("DOMContentLoaded", openTarget);
})();
