// Step-through backward passes: <figure class="backprop-steps"> from coursekit/figures/backprop_steps.py.
//
// The figure's HTML is complete without this script: the drawing shows every value and
// gradient, and an ordered list gives every step as text. This script turns the list
// into one step at a time: Previous / Next buttons, the Left / Right arrow keys (Home,
// End) while the figure or a button has focus (Up / Down still scroll the page), a "Step 3 of 7" counter, and a live region that reads the current step aloud.
// with_step_assets (coursekit/mkdocs_adapter/plugin.py) adds it only to pages that hold a figure, inside the
// content, so Material's instant navigation (off in mkdocs.yml) would re-run it too.
(function () {
  "use strict";

  function show(figure, step) {
    var total = Number(figure.dataset.steps);
    step = Math.max(1, Math.min(total, step));
    figure.dataset.current = String(step);
    figure.querySelectorAll("svg [data-step]").forEach(function (el) {
      var at = Number(el.dataset.step);
      // The last step has no active node: every gradient is shown.
      el.classList.toggle("bps-future", at > step);
      el.classList.toggle("bps-active", at === step);
    });
    var item = figure.querySelector('.bps-steps > li[data-step="' + step + '"]');
    var counter = "Step " + step + " of " + total;
    figure.querySelector(".bps-counter").textContent = counter;
    // The live region repeats the step's sentences from the list (copies of our own
    // nodes, never parsed HTML), after the counter.
    var live = figure.querySelector(".bps-live");
    var heading = document.createElement("strong");
    heading.className = "bps-part";
    heading.textContent = counter + ":";
    live.replaceChildren(heading, document.createTextNode(" "));
    if (item) {
      item.childNodes.forEach(function (node) {
        live.appendChild(node.cloneNode(true));
      });
    }
    // aria-disabled, not disabled: a disabled button loses the keyboard focus (it falls
    // to <body>, and the arrow keys stop working); this one keeps it and does nothing.
    setOff(figure.querySelector(".bps-prev"), step === 1);
    setOff(figure.querySelector(".bps-next"), step === total);
  }

  function setOff(button, off) {
    if (off) {
      button.setAttribute("aria-disabled", "true");
    } else {
      button.removeAttribute("aria-disabled");
    }
  }

  function move(figure, by) {
    show(figure, Number(figure.dataset.current) + by);
  }

  function setUp(figure) {
    if (figure.dataset.bpsReady) return;
    figure.dataset.bpsReady = "true";
    figure.classList.add("bps-js");
    figure.querySelector(".bps-controls").hidden = false;
    figure.querySelector(".bps-live").hidden = false;
    // Focusable, so the arrow keys work once a reader has clicked or tabbed into it.
    figure.tabIndex = 0;
    // Exactly the keys the handler below takes.
    figure.setAttribute("aria-keyshortcuts", "ArrowLeft ArrowRight Home End");
    [
      [".bps-prev", -1],
      [".bps-next", 1],
    ].forEach(function (pair) {
      var button = figure.querySelector(pair[0]);
      button.addEventListener("click", function () {
        if (button.getAttribute("aria-disabled") === "true") return;
        move(figure, pair[1]);
      });
    });
    figure.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      var total = Number(figure.dataset.steps);
      var to = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
      if (to) {
        move(figure, to);
      } else if (event.key === "Home") {
        show(figure, 1);
      } else if (event.key === "End") {
        show(figure, total);
      } else {
        return;
      }
      event.preventDefault(); // Left / Right would otherwise scroll the drawing sideways
    });
    show(figure, 1);
  }

  function init() {
    document.querySelectorAll("figure.backprop-steps").forEach(setUp);
  }

  if (!window.__backpropSteps) {
    window.__backpropSteps = true;
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(init);
    } else if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", init);
    }
  }
  init();
})();
