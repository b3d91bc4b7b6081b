// maai view: live updates by polling (docs/view.md). No library, no network beyond this app.
"use strict";

const POLL_MS = 500;

async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(url + ": " + response.status);
  return response.json();
}

// The run page: the events after the last one shown, as HTML rendered (and escaped) by the
// server, appended while the run is written.
function followRun(timeline) {
  const status = document.getElementById("run-status");
  const head = document.getElementById("run-head");
  const note = document.getElementById("live-note");
  let shown = Number(timeline.dataset.head);
  let waiting = false;
  async function poll() {
    if (waiting) return;
    waiting = true;
    try {
      const live = await getJSON(timeline.dataset.live + "?after=" + shown);
      if (live.html && live.head > shown) {
        const lists = timeline.parentElement.querySelectorAll("ol.timeline");
        lists[lists.length - 1].insertAdjacentHTML("beforeend", live.html);
        shown = live.head;
      }
      status.textContent = live.status;
      head.textContent = String(shown);
      note.textContent = live.status === "running" ? "live" : "";
    } catch (error) {
      note.textContent = "cannot reach the viewer: " + error.message;
    } finally {
      waiting = false;
    }
  }
  setInterval(poll, POLL_MS);
}

// The study page: when a run's status changes, the page's content is fetched again and put
// in place (no reload): the counts, the results by condition and the runs, then the study
// report's sections. Between changes the ETA counts down from the last one the viewer gave.
function followStudy(progress) {
  const reportUrl = (document.getElementById("part-report") || { dataset: {} }).dataset.part;
  let last = null;
  let etaGiven = null;
  let etaEnd = null;
  function countDown() {
    const eta = document.getElementById("study-eta");
    if (eta && etaEnd !== null) eta.textContent = Math.max(0, Math.round((etaEnd - Date.now()) / 1000)) + " s";
  }
  async function poll() {
    try {
      const live = await getJSON(progress.dataset.live);
      const now = JSON.stringify([live.counts, live.total]);
      if (live.eta_s !== etaGiven) {
        etaGiven = live.eta_s;
        etaEnd = live.eta_s === null ? null : Date.now() + live.eta_s * 1000;
      }
      if (last !== null && now !== last) {
        const response = await fetch(location.href, { credentials: "same-origin" });
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = page.getElementById("study");
        if (response.ok && fresh) document.getElementById("study").replaceWith(document.adoptNode(fresh));
        // The sections, or their slot if not loaded yet (then loadParts' older copy is dropped).
        const report = document.getElementById("report") || document.getElementById("part-report");
        if (report && reportUrl) {
          const part = await fetch(reportUrl, { credentials: "same-origin" });
          const sections = new DOMParser().parseFromString(await part.text(), "text/html");
          const freshReport = sections.getElementById("report");
          if (part.ok && freshReport) report.replaceWith(document.adoptNode(freshReport));
        }
      }
      last = now;
      countDown();
    } catch (error) {
      // the next poll tries again
    }
  }
  poll();
  setInterval(poll, 1000);
  setInterval(countDown, 1000);
}

// A call's exact prompt is fetched when its block is first opened (a long run holds
// thousands of them).
function lazyPrompts() {
  document.addEventListener("toggle", async (event) => {
    const call = event.target;
    if (!(call instanceof HTMLDetailsElement) || !call.open || !call.dataset.prompt) return;
    const slot = call.querySelector(".prompt-slot");
    if (!slot || slot.dataset.loaded) return;
    slot.dataset.loaded = "1";
    const response = await fetch(call.dataset.prompt, { credentials: "same-origin" });
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const prompt = page.querySelector(".prompt");
    if (prompt) slot.replaceChildren(document.adoptNode(prompt));
  }, true);
}

// Deep links: #p2/r3/Alice/statement names a call slot; the element whose id or address
// starts with it is opened and shown.
function followHash() {
  const wanted = decodeURIComponent(location.hash.slice(1));
  if (!wanted) return;
  let target = document.getElementById(wanted);
  if (!target) {
    for (const element of document.querySelectorAll("[data-address], details.call")) {
      const address = element.dataset.address || element.id;
      if (address === wanted || address.startsWith(wanted + "/")) { target = element; break; }
    }
  }
  if (!target) return;
  for (let open = target; open; open = open.parentElement) {
    if (open instanceof HTMLDetailsElement) open.open = true;
  }
  target.classList.add("targeted");
  target.scrollIntoView({ block: "start" });
}

// The parts after the first screen, each fetched once, at the head the page was read at:
// the others at once, and the rest of the timeline before the live events go after it.
async function loadPart(slot) {
  try {
    const response = await fetch(slot.dataset.part, { credentials: "same-origin" });
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const part = page.body.firstElementChild;
    if (!response.ok || !part) throw new Error(String(response.status));
    slot.replaceWith(document.adoptNode(part));
  } catch (error) {
    slot.querySelector(".note").textContent = "could not be loaded (" + error.message + ")";
  }
}

async function loadParts() {
  const rest = document.getElementById("part-timeline");
  // Every other part at once (on a long run one, the audits, takes far longer than the
  // others); the rest of the timeline before the live events are followed.
  const others = Array.from(document.querySelectorAll("div.part[data-part]"))
    .filter((slot) => slot !== rest)
    .map(loadPart);
  if (rest) await loadPart(rest);
  const timeline = document.getElementById("timeline");
  if (timeline) followRun(timeline);
  await Promise.all(others);
  followHash();
}

// The runs page: rows still being read are asked for again until every one is there.
function completeRuns(table) {
  setTimeout(async () => {
    try {
      const response = await fetch(location.href, { credentials: "same-origin" });
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("runs");
      if (!fresh) return;
      table.replaceWith(document.adoptNode(fresh));
      if (fresh.dataset.pending) completeRuns(fresh);
    } catch (error) {
      completeRuns(table);
    }
  }, 500);
}

document.addEventListener("DOMContentLoaded", () => {
  const runs = document.getElementById("runs");
  if (runs && runs.dataset.pending) completeRuns(runs);
  loadParts();
  const progress = document.getElementById("study-progress");
  if (progress) followStudy(progress);
  lazyPrompts();
  followHash();
  window.addEventListener("hashchange", followHash);
});
