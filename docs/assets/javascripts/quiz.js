// Quizzes: check answers, give feedback, remember progress in this browser.
//
// The HTML comes from coursekit/content/templates/quiz.html and is complete without
// this script (questions, options, and the answers in <details>). This script adds the
// "Check answer" button, feedback in an aria-live region, retries, and progress
// saved in localStorage under one key for the whole site, with reset buttons.
// It runs on every page load (and on every page Material's instant navigation, off in
// mkdocs.yml, would swap in).
(function () {
  "use strict";

  var KEY = "autograd-part2:quiz-progress:v1";

  // --- Progress: { "<page>/<question>": { correct: bool, answer: ... } } ---------
  function readProgress() {
    try {
      var data = JSON.parse(window.localStorage.getItem(KEY) || "{}");
      return data && typeof data === "object" && !Array.isArray(data) ? data : {};
    } catch (error) {
      return {};
    }
  }

  function writeProgress(data) {
    try {
      window.localStorage.setItem(KEY, JSON.stringify(data));
    } catch (error) {
      // Storage full or disabled: the quiz still works, it just forgets.
    }
  }

  function record(id, entry) {
    var data = readProgress();
    if (entry) {
      data[id] = entry;
    } else {
      delete data[id];
    }
    writeProgress(data);
  }

  // Must match coursekit/content/quiz_model.py normalise_blank.
  function normaliseBlank(text) {
    var value = String(text).replace(/\s+/g, "");
    if (value.charAt(0) === ".") value = value.slice(1);
    if (value.slice(-2) === "()") value = value.slice(0, -2);
    return value;
  }

  // --- Reading and grading one question ------------------------------------------
  function readAnswer(question) {
    var type = question.dataset.quizType;
    if (type === "choice") {
      var checked = question.querySelector('input[type="radio"]:checked');
      return checked ? checked.value : null;
    }
    if (type === "blank") {
      var text = question.querySelector(".quiz-blank").value;
      return normaliseBlank(text) ? text : null;
    }
    var picks = Array.prototype.map.call(question.querySelectorAll("select"), function (s) {
      return s.value;
    });
    return picks.indexOf("") === -1 ? picks : null;
  }

  function writeAnswer(question, answer) {
    var type = question.dataset.quizType;
    if (type === "choice") {
      question.querySelectorAll('input[type="radio"]').forEach(function (input) {
        input.checked = answer !== null && input.value === String(answer);
      });
    } else if (type === "blank") {
      question.querySelector(".quiz-blank").value = answer === null ? "" : String(answer);
    } else {
      question.querySelectorAll("select").forEach(function (select, i) {
        select.value = answer && answer[i] !== undefined ? answer[i] : "";
      });
    }
  }

  function explanation(question, selector) {
    var item = question.querySelector(".quiz-answer " + selector + " .quiz-explanation__text");
    return item ? item.innerHTML : "";
  }

  function general(question) {
    var block = question.querySelector(".quiz-explanation__general");
    return block ? block.innerHTML : "";
  }

  // Returns { correct, html } where html explains the verdict.
  function grade(question, answer) {
    var type = question.dataset.quizType;
    if (type === "choice") {
      var correct = answer === question.dataset.quizAnswer;
      var why = explanation(question, '[data-quiz-explain="' + answer + '"]');
      return { correct: correct, html: "<p>" + why + "</p>" + (correct ? general(question) : "") };
    }
    if (type === "blank") {
      var given = normaliseBlank(answer);
      var accepted = JSON.parse(question.dataset.quizAnswer);
      if (accepted.indexOf(given) !== -1) {
        return { correct: true, html: "<p>" + explanation(question, '[data-quiz-explain="right"]') + "</p>" };
      }
      var known = null;
      question.querySelectorAll("[data-quiz-wrong]").forEach(function (item) {
        if (item.dataset.quizWrong === given) known = item;
      });
      var text = document.createElement("code");
      text.textContent = given;
      var html = known
        ? known.querySelector(".quiz-explanation__text").innerHTML
        : text.outerHTML + " is not what goes in the blank.";
      return { correct: false, html: "<p>" + html + "</p>" };
    }
    var right = 0;
    question.querySelectorAll("select").forEach(function (select, i) {
      var ok = answer[i] === String(i);
      if (ok) right += 1;
      var mark = select.parentElement.querySelector("[data-quiz-mark]");
      select.setAttribute("aria-invalid", ok ? "false" : "true");
      if (mark) mark.textContent = ok ? "✓ right" : "✗ not this one";
      select.parentElement.classList.toggle("quiz-pair--wrong", !ok);
      select.parentElement.classList.toggle("quiz-pair--right", ok);
    });
    var all = right === answer.length;
    var details = all
      ? Array.prototype.map
          .call(question.querySelectorAll(".quiz-answer .quiz-explanation"), function (item) {
            return "<li>" + item.innerHTML + "</li>";
          })
          .join("")
      : "";
    return {
      correct: all,
      html: all
        ? "<ul>" + details + "</ul>" + general(question)
        : "<p>" + right + " of " + answer.length + " matches are right. The ones marked ✗ are not.</p>",
    };
  }

  // --- Showing the result ---------------------------------------------------------
  function show(question, result, restored) {
    var feedback = question.querySelector("[data-quiz-feedback]");
    var status = question.querySelector("[data-quiz-status]");
    var reveal = question.querySelector("[data-quiz-reveal]");
    var verdict = result.correct ? "Correct." : "Not quite.";
    var after = result.correct ? "" : "<p>Change your answer and check it again, or show the answer.</p>";
    var note = restored ? '<p class="quiz-feedback__restored">Your answer from an earlier visit.</p>' : "";
    feedback.innerHTML = note + '<p class="quiz-feedback__verdict"><strong>' + verdict + "</strong></p>" + result.html + after;
    feedback.classList.toggle("quiz-feedback--correct", result.correct);
    feedback.classList.toggle("quiz-feedback--wrong", !result.correct);
    question.classList.toggle("quiz-question--correct", result.correct);
    question.classList.toggle("quiz-question--wrong", !result.correct);
    status.textContent = result.correct ? " — answered correctly" : " — not right yet";
    reveal.hidden = result.correct;
  }

  function clear(question) {
    writeAnswer(question, null);
    var feedback = question.querySelector("[data-quiz-feedback]");
    feedback.innerHTML = "";
    feedback.classList.remove("quiz-feedback--correct", "quiz-feedback--wrong");
    question.classList.remove("quiz-question--correct", "quiz-question--wrong");
    question.querySelector("[data-quiz-status]").textContent = "";
    question.querySelector("[data-quiz-reveal]").hidden = true;
    question.querySelector("[data-quiz-answer-key]").hidden = true;
    question.querySelectorAll(".quiz-pair").forEach(function (pair) {
      pair.classList.remove("quiz-pair--right", "quiz-pair--wrong");
      pair.querySelector("select").removeAttribute("aria-invalid");
      pair.querySelector("[data-quiz-mark]").textContent = "";
    });
  }

  function setUp(question) {
    if (question.dataset.quizReady) return;
    question.dataset.quizReady = "true";
    var id = question.dataset.quizId;
    var form = question.querySelector("[data-quiz-form]");
    var key = question.querySelector("[data-quiz-answer-key]");
    // With JavaScript the answer is shown on request, not one click away.
    key.hidden = true;
    key.removeAttribute("data-quiz-pending");
    question.querySelector("[data-quiz-actions]").hidden = false;

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var answer = readAnswer(question);
      if (answer === null) {
        var feedback = question.querySelector("[data-quiz-feedback]");
        var ask = {
          choice: "Choose an answer first.",
          blank: "Type your answer in the blank first.",
          match: "Choose a match for every item first.",
        };
        feedback.innerHTML = "<p>" + ask[question.dataset.quizType] + "</p>";
        feedback.classList.remove("quiz-feedback--correct", "quiz-feedback--wrong");
        return;
      }
      var result = grade(question, answer);
      show(question, result, false);
      record(id, { correct: result.correct, answer: answer });
      updateProgress();
    });

    question.querySelector("[data-quiz-reveal]").addEventListener("click", function () {
      key.hidden = false;
      key.open = true;
      key.querySelector("summary").focus();
    });

    var saved = readProgress()[id];
    if (saved && saved.answer !== undefined && saved.answer !== null) {
      writeAnswer(question, saved.answer);
      var answer = readAnswer(question);
      if (answer !== null) show(question, grade(question, answer), true);
    }
  }

  // --- Progress summaries and reset buttons ---------------------------------------
  function count(page, ids, data) {
    var right = 0;
    ids.forEach(function (qid) {
      var entry = data[page + "/" + qid];
      if (entry && entry.correct) right += 1;
    });
    return right;
  }

  function updateProgress() {
    var data = readProgress();
    var grandRight = 0;
    var grandTotal = 0;
    document.querySelectorAll("[data-quiz-index] li[data-quiz-page]").forEach(function (item) {
      var ids = item.dataset.quizIds.split(" ");
      var right = count(item.dataset.quizPage, ids, data);
      grandRight += right;
      grandTotal += ids.length;
      var span = item.querySelector("[data-quiz-progress-for]");
      span.textContent = " — you have answered " + right + " of " + ids.length + " correctly";
      span.hidden = false;
    });
    document.querySelectorAll("[data-quiz-progress]").forEach(function (box) {
      var text = box.querySelector("[data-quiz-progress-text]");
      if (box.dataset.quizPage === "*") {
        text.textContent = "Over all quizzes, you have answered " + grandRight + " of " + grandTotal + " questions correctly.";
      } else {
        var ids = box.dataset.quizIds.split(" ");
        text.textContent = "You have answered " + count(box.dataset.quizPage, ids, data) + " of " + ids.length + " questions on this page correctly.";
      }
      box.hidden = false;
    });
  }

  function reset(button) {
    var scope = button.dataset.quizReset;
    var data = readProgress();
    var page = scope === "all" ? null : button.closest("[data-quiz-progress]").dataset.quizPage;
    Object.keys(data).forEach(function (id) {
      if (page === null || id.indexOf(page + "/") === 0) delete data[id];
    });
    writeProgress(data);
    document.querySelectorAll(".quiz-question[data-quiz-id]").forEach(function (question) {
      if (page === null || question.dataset.quizId.indexOf(page + "/") === 0) clear(question);
    });
    updateProgress();
    var text = button.closest("[data-quiz-progress]").querySelector("[data-quiz-progress-text]");
    text.textContent = (scope === "all" ? "All your quiz answers were cleared. " : "Your answers on this page were cleared. ") + text.textContent;
  }

  function init() {
    var questions = document.querySelectorAll(".quiz-question[data-quiz-id]");
    var boxes = document.querySelectorAll("[data-quiz-progress]");
    if (!questions.length && !boxes.length) return;
    questions.forEach(setUp);
    document.querySelectorAll("[data-quiz-reset]").forEach(function (button) {
      if (button.dataset.quizReady) return;
      button.dataset.quizReady = "true";
      button.addEventListener("click", function () {
        reset(button);
      });
    });
    updateProgress();
  }

  // document$ emits once per page shown (several times under Material's instant
  // navigation, off in mkdocs.yml). Without Material, run once the page has loaded.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
