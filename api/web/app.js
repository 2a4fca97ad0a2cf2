// papertalk's web page: topics, papers, Ask PDF and streamed cited answers over the /api routes.
// Every piece of text from the server (titles, abstracts, passages, answers) goes in through textContent
// or createTextNode, never as markup.
"use strict";

const view = document.getElementById("view");

// --- small DOM helpers -------------------------------------------------------------------------------
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function show(...nodes) {
  view.replaceChildren(...nodes);
  window.scrollTo(0, 0);
}

function problemText(body, status) {
  if (body && typeof body === "object") return body.detail || body.title || `HTTP ${status}`;
  return `HTTP ${status}`;
}

async function getJSON(url, options) {
  const response = await fetch(url, options);
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(problemText(body, response.status));
    error.status = response.status;
    throw error;
  }
  return body;
}

function failure(error) {
  return el("p", { class: "error", role: "alert", text: error.message || String(error) });
}

function shortAuthors(authors) {
  if (!authors || !authors.length) return "";
  return authors.length > 3 ? `${authors.slice(0, 3).join(", ")} et al.` : authors.join(", ");
}

const paperHref = (id) => `#/paper/${encodeURIComponent(id)}`;
const topicHref = (slug) => `#/topic/${encodeURIComponent(slug)}`;
const pdfHref = (id, page) => `/api/papers/${encodeURIComponent(id)}/pdf${page ? `#page=${page}` : ""}`;

// --- answers: sentences with numbered citations ------------------------------------------------------
function sentenceSpan(sentence, sources) {
  const part = el("span", { class: sentence.supported === false ? "sentence unsupported" : "sentence" });
  if (sentence.supported === false) part.title = "No passage supports this sentence well";
  part.append(document.createTextNode(sentence.text.replace(/\s*\[\d+\]/g, "")));
  for (const citation of sentence.citations || []) {
    part.append(citeButton(citation, sources[citation.number - 1]));
  }
  if (sentence.supported === false) part.append(el("span", { class: "flag", text: "unsupported" }));
  return part;
}

function prose(sentences, sources) {
  const out = el("p", { class: "answer-text" });
  for (const sentence of sentences) out.append(sentenceSpan(sentence, sources), document.createTextNode(" "));
  return out;
}

function renderAnswer(answer) {
  const box = el("div", { class: "answer", "data-backend": answer.backend || "" });
  const elsewhere = answer.elsewhere || [];
  if (elsewhere.length) {
    // the question names a paper outside the scope: say so, and link that paper's page (its Ask PDF)
    const names = [...new Set(elsewhere.map((r) => r.name))].join(" or ");
    box.append(el("p", { class: "abstained", role: "status",
      text: `No answer: nothing in this scope mentions ${names}.` }));
    box.append(el("p", { class: "elsewhere" }, "The library has it outside this scope: ",
      ...elsewhere.flatMap((r, i) => [i ? "; " : "",
        el("a", { href: paperHref(r.paper_id), class: "elsewhere-link", text: r.title })]),
      ". Ask it on its page, or ask across all papers."),
      askEverywhere(answer.standalone_question || answer.question));
  } else if (answer.abstained) {
    box.append(el("p", { class: "abstained", role: "status",
      text: "No answer: the papers in scope do not say this, so papertalk will not guess." }));
  }
  const sources = answer.sources || [];
  if ((answer.items || []).length) {
    // the quotes that answer another part of the question come before the list (the last sentences are its items)
    const said = (answer.sentences || []).slice(0, Math.max(0, (answer.sentences || []).length - answer.items.length));
    if (said.length) box.append(prose(said, sources));
    box.append(itemList(answer.items, sources));
    if (sources.length) box.append(sourceList(answer));
    for (const note of answer.notes || []) box.append(el("p", { class: "note muted", text: note }));
    return box;
  }
  const text = prose(answer.sentences || [], sources);
  if (!(answer.sentences || []).length && answer.text && !answer.abstained) text.textContent = answer.text;
  box.append(text);
  if (sources.length) box.append(sourceList(answer));
  for (const note of answer.notes || []) box.append(el("p", { class: "note muted", text: note }));
  return box;
}

// The same question over every paper, answered under the answer that pointed there (not a turn of the chat).
function askEverywhere(question) {
  const out = el("div", { class: "everywhere" });
  const button = el("button", { type: "button", class: "ask-everywhere", text: "Ask across all papers" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await streamAnswer({ question, scope: {} }, out, { conversation: null });
    } catch (error) {
      out.replaceChildren(failure(error));
    } finally {
      button.disabled = false;
    }
  });
  return el("div", { class: "elsewhere-actions" }, button, out);
}

// A list answer: each named item, how many papers name it (with their citations), and the first quote.
function itemList(items, sources) {
  const list = el("ul", { class: "items" });
  for (const item of items) {
    const line = el("li", { class: "item", "data-kind": item.kind },
      el("strong", { class: "item-name", text: item.name }),
      el("span", { class: "muted", text: ` — ${item.papers} paper${item.papers === 1 ? "" : "s"}` }));
    for (const citation of item.citations || []) line.append(citeButton(citation, sources[citation.number - 1]));
    if (item.quote) line.append(el("q", { class: "item-quote", text: item.quote }));
    list.append(line);
  }
  return list;
}

function citeButton(citation, source) {
  return el("button", {
    type: "button", class: "cite", "data-number": citation.number,
    title: source ? `${source.title} (${source.pages || ""})` : `source ${citation.number}`,
    onclick: () => openPassage(source, citation),
  }, `[${citation.number}]`);
}

// The numbers the answer cites, in its text and in its list items.
function citedNumbers(answer) {
  const cited = new Set();
  for (const part of [...(answer.sentences || []), ...(answer.items || [])]) {
    for (const citation of part.citations || []) cited.add(citation.number);
  }
  return cited;
}

// Each paper once (the answer's `papers`, grouped by the server), its title linking to the paper; under it
// the numbered places retrieved in it, each opening its passage ([n] as in the text). The papers the answer cites
// come first; the ones retrieved but not cited fold under "N more papers retrieved, not cited" (an answer that
// cites nothing, such as an abstention's closest passages, shows them all).
function sourceList(answer) {
  const cited = citedNumbers(answer);
  const list = el("ol", { class: "sources" });
  const rest = el("ol", { class: "sources uncited" });
  const byNumber = new Map((answer.sources || []).map((source) => [source.number, source]));
  for (const paper of answer.papers || []) {
    const group = paper.places.map((place) => byNumber.get(place.number)).filter(Boolean);
    if (!group.length) continue;
    const first = group[0];
    const places = el("ul", { class: "places" });
    for (const source of group) {
      places.append(el("li", { class: cited.has(source.number) ? "place cited" : "place", "data-number": source.number },
        el("button", { type: "button", class: "place-cite", onclick: () => openPassage(source, null) }, `[${source.number}]`),
        el("span", { class: "muted", text: ` ${source.pages || ""}` }),
        el("span", { class: "section", text: source.section ? ` ${source.section}` : "" })));
    }
    const isCited = !cited.size || group.some((source) => cited.has(source.number));
    (isCited ? list : rest).append(el("li", { class: "paper-source", "data-paper": first.paper_id },
      el("a", { href: paperHref(first.paper_id), class: "source-link",
        onclick: (event) => { event.preventDefault(); openPassage(first, null); } }, first.title),
      el("span", { class: "muted", text: first.year ? ` · ${first.year}` : "" }), places));
  }
  if (!rest.children.length) return list;
  const n = rest.children.length;
  return el("div", { class: "source-lists" }, list,
    el("details", { class: "more-sources" },
      el("summary", { class: "muted", text: `${n} more paper${n === 1 ? "" : "s"} retrieved, not cited` }), rest));
}

// --- the passage panel: the cited chunk with its quoted span highlighted --------------------------------
function spanOf(text, citation) {
  if (!citation) return null;
  const { span_start: start, span_end: end, quote } = citation;
  if (Number.isInteger(start) && Number.isInteger(end) && end > start && end <= text.length) return [start, end];
  const at = quote ? text.indexOf(quote) : -1;
  return at >= 0 ? [at, at + quote.length] : null;
}

function openPassage(source, citation) {
  if (!source) return;
  const panel = document.getElementById("passage");
  document.getElementById("passage-title").textContent = source.title;
  const meta = [shortAuthors(source.authors), source.year, source.pages].filter(Boolean).join(" · ");
  document.getElementById("passage-meta").textContent = meta;
  const body = document.getElementById("passage-text");
  const text = source.text || "";
  const span = spanOf(text, citation);
  if (span) {
    body.replaceChildren(text.slice(0, span[0]), el("mark", { text: text.slice(span[0], span[1]) }), text.slice(span[1]));
  } else {
    body.replaceChildren(text);
  }
  const page = (citation && citation.page_start) || source.page_start;
  const links = document.getElementById("passage-links");
  links.replaceChildren(el("a", { href: paperHref(source.paper_id), text: "Paper page" }));
  if (page) links.append(" · ", el("a", { href: pdfHref(source.paper_id, page), target: "_blank", text: `PDF at page ${page}` }));
  if (source.link) links.append(" · ", el("a", { href: source.link, target: "_blank", rel: "noopener", text: "arXiv" }));
  panel.hidden = false;
  const mark = body.querySelector("mark");
  if (mark) mark.scrollIntoView({ block: "nearest" });
}

document.getElementById("passage-close").addEventListener("click", () => {
  document.getElementById("passage").hidden = true;
});

// --- streamed answers: POST /api/chat with Accept: text/event-stream -------------------------------------
function parseEvent(block) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  const raw = data.join("\n");
  try {
    return { name, data: JSON.parse(raw) };
  } catch {
    return { name, data: raw };
  }
}

async function* events(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (block.trim()) yield parseEvent(block);
    }
  }
  if (buffer.trim()) yield parseEvent(buffer);
}

function deltaText(data) {
  if (typeof data === "string") return data;
  return data.text || data.delta || "";
}

async function streamAnswer(body, out, state) {
  const live = el("p", { class: "answer-text streaming" });
  out.replaceChildren(live);
  const response = await fetch("/api/chat", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const problem = await response.json().catch(() => null);
    throw new Error(problemText(problem, response.status));
  }
  for await (const event of events(response)) {
    if (event.name === "delta") live.append(deltaText(event.data));
    else if (event.name === "error") throw new Error(problemText(event.data, 500));
    else if (event.name !== "done" && event.data && typeof event.data === "object") {
      const answer = event.data.answer || event.data;
      if (answer.sentences || answer.abstained !== undefined) {
        if (answer.conversation_id) state.conversation = answer.conversation_id;
        out.replaceChildren(renderAnswer(answer));
      }
      if (event.data.conversation_id) state.conversation = event.data.conversation_id;
    }
  }
  live.classList.remove("streaming");
}

function askPanel(heading, scope, placeholder) {
  const state = { conversation: null };
  const thread = el("div", { class: "thread" });
  const input = el("textarea", { name: "question", rows: 2, maxlength: 2000, placeholder, required: true });
  const button = el("button", { type: "submit", text: "Ask" });
  const form = el("form", { class: "ask-form" }, input, button);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const question = input.value.trim();
    if (!question) return;
    const out = el("div", { class: "turn-answer" });
    thread.append(el("div", { class: "turn" }, el("p", { class: "question", text: question }), out));
    button.disabled = true;
    const body = { question, scope };
    if (state.conversation) body.conversation_id = state.conversation;
    try {
      await streamAnswer(body, out, state);
      input.value = "";
    } catch (error) {
      out.replaceChildren(failure(error));
    } finally {
      button.disabled = false;
    }
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });
  return el("section", { class: "ask card", id: "ask" }, el("h2", { text: heading }), thread, form);
}

// --- the weekly chart (SVG, built node by node) ------------------------------------------------------------
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

function weeklyChart(weeks) {
  const width = 440, height = 150, pad = 20;
  const top = Math.max(1, ...weeks.map((w) => w.count));
  const step = (width - 2 * pad) / Math.max(1, weeks.length);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img",
    "aria-label": "Papers per week" });
  weeks.forEach((week, i) => {
    const h = Math.round((height - 2 * pad) * week.count / top);
    const bar = svg("rect", { x: pad + i * step + 2, y: height - pad - h, width: Math.max(2, step - 4), height: h,
      class: i === weeks.length - 1 ? "bar current" : "bar" });
    const tip = svg("title", {});
    tip.textContent = `Week of ${week.label}: ${week.count} papers`;
    bar.append(tip);
    chart.append(bar);
    const last = i === weeks.length - 1;
    if (last || (i % 4 === 0 && i < weeks.length - 3)) {
      const label = svg("text", { x: last ? width - pad : pad + i * step + step / 2, y: height - 6,
        "text-anchor": last ? "end" : "middle" });
      label.textContent = last ? `Week of ${week.label}` : week.label;
      chart.append(label);
    }
  });
  const peak = svg("text", { x: pad, y: 12 });
  peak.textContent = `${top} papers / week at most`;
  chart.append(peak);
  return chart;
}

// --- paper lists with J/K ---------------------------------------------------------------------------------
let listNav = null; // the list J/K moves through on the current page

function paperItem(paper) {
  const tags = (paper.tags || paper.topics || []).map((t) => (typeof t === "string" ? t : t.name));
  return el("li", { class: "paper", "data-paper-id": paper.paper_id, tabindex: -1 },
    el("a", { href: paperHref(paper.paper_id), class: "paper-title", text: paper.title }),
    el("div", { class: "paper-meta muted" },
      el("span", { text: paper.published || "no date" }), " · ",
      el("span", { text: paper.authors_short || shortAuthors(paper.authors) }),
      ...tags.map((t) => el("span", { class: "tag", text: t }))));
}

function selectPaper(list, index) {
  const items = [...list.querySelectorAll("li.paper")];
  if (!items.length) return;
  const next = Math.max(0, Math.min(items.length - 1, index));
  items.forEach((item, i) => item.classList.toggle("selected", i === next));
  items[next].scrollIntoView({ block: "nearest" });
  list.dataset.selected = String(next);
}

document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (!listNav || event.ctrlKey || event.metaKey || event.altKey) return;
  if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
  const current = Number(listNav.dataset.selected ?? -1);
  const key = event.key.toLowerCase();
  if (key === "j") selectPaper(listNav, current + 1);
  else if (key === "k") selectPaper(listNav, current - 1);
  else if (event.key === "Enter" && current >= 0) {
    const item = listNav.querySelectorAll("li.paper")[current];
    if (item) location.hash = paperHref(item.dataset.paperId);
  } else return;
  event.preventDefault();
});

// --- pages --------------------------------------------------------------------------------------------
async function homePage() {
  const topics = await getJSON("/api/topics");
  const items = Array.isArray(topics) ? topics : topics.topics || [];
  const list = el("ul", { class: "topics" }, items.map((t) => el("li", {},
    el("a", { href: topicHref(t.slug), text: t.name }),
    el("span", { class: "muted", text: ` ${t.papers ?? ""} papers` }))));
  show(el("h1", { text: "Topics" }), items.length ? list : el("p", { class: "muted", text: "No topics yet." }),
    askPanel("Ask the whole corpus", {}, "Ask about any paper in the corpus…"));
}

// The stored overview, section by section (framing, themes, challenges), numbered citations throughout.
function renderOverview(overview) {
  const answer = overview.answer;
  const sources = answer.sources || [];
  const box = el("div", { class: "answer overview-text", "data-backend": answer.backend || "" });
  const sections = (overview.sections || []).filter((s) => s.sentences.length);
  if (!sections.length) box.append(prose(answer.sentences, sources));
  for (const section of sections) {
    const title = section.kind === "framing" ? null : el("h3", { text: section.title });
    box.append(el("div", { class: `ov-section ov-${section.kind}` }, title,
      prose(section.sentences.map((i) => answer.sentences[i]).filter(Boolean), sources)));
  }
  if (sources.length) box.append(sourceList(answer));
  const when = overview.built_at.replace("T", " ").slice(0, 16);
  const built = overview.kind === "paper" ? `Quoted from the paper, ${when} (${overview.backend}).`
    : `Built ${when} from ${overview.papers} papers (${overview.backend}).`;
  const pending = (overview.new_since_built || []).length;
  box.append(el("p", { class: "note muted", text: pending ? `${built} ${pending} papers added since: refresh it with papertalk overview --refresh.` : built }));
  return box;
}

function overviewSection(data) {
  const section = el("section", { class: "overview card" }, el("h2", { text: "Overview" }));
  const overview = data.overview;
  if (overview && overview.answer && (overview.answer.sentences || []).length) section.append(renderOverview(overview));
  else section.append(el("p", { class: "muted", text: `No overview yet: \`papertalk overview "${data.name}"\` builds one. Ask a question below meanwhile.` }));
  return section;
}

function momentumSection(momentum) {
  const section = el("section", { class: "momentum card" }, el("h2", { text: "Momentum" }));
  if (!momentum) return section.appendChild(el("p", { class: "muted", text: "No momentum figures for this topic yet." })) && section;
  section.append(el("p", { class: "momentum-line", text: momentum.sentence || "" }));
  if (momentum.note || momentum.as_of) {
    section.append(el("p", { class: "muted small momentum-note", text: momentum.note || `as of ${momentum.as_of}` }));
  }
  if (momentum.weeks && momentum.weeks.length) section.append(weeklyChart(momentum.weeks));
  return section;
}

function relatedSection(related) {
  const section = el("section", { class: "related card" }, el("h2", { text: "Related topics" }));
  if (!related || !related.length) return section.appendChild(el("p", { class: "muted", text: "None yet." })) && section;
  section.append(el("ul", {}, related.map((r) => el("li", {},
    el("a", { href: topicHref(r.slug), text: r.name }),
    el("span", { class: "strength", title: "Strength: shared papers and closeness of the topics' centres",
      text: ` ${Number(r.strength).toFixed(2)}` }),
    el("span", { class: "muted", text: ` · ${r.shared} shared paper${r.shared === 1 ? "" : "s"}` })))));
  return section;
}

// A button that switches a state on the server: POST to turn it on, DELETE to turn it off.
function toggleButton(cls, url, on, labels) {
  let state = Boolean(on);
  const button = el("button", { type: "button", class: cls });
  const paint = () => { button.textContent = labels[state ? 1 : 0]; button.setAttribute("aria-pressed", String(state)); };
  paint();
  button.addEventListener("click", async () => {
    try {
      await getJSON(url, { method: state ? "DELETE" : "POST" });
      state = !state;
      paint();
    } catch (error) {
      button.after(failure(error));
    }
  });
  return button;
}

function followButton(data) {
  return toggleButton("follow", `/api/topics/${encodeURIComponent(data.slug)}/follow`, data.followed,
    ["Follow", "Following ✓"]);
}

async function latestOf(data) {
  if (data.latest) return data.latest;
  const page = await getJSON(`/api/topics/${encodeURIComponent(data.slug)}/papers?limit=20`);
  return { items: page.items || page.papers || [], total: page.total, offset: 0 };
}

function latestSection(data, latest) {
  const list = el("ol", { class: "papers", id: "latest" }, latest.items.map(paperItem));
  listNav = list;
  const section = el("section", { class: "latest card" },
    el("h2", { text: `Latest papers` }, el("span", { class: "muted small", text: ` ${latest.total ?? latest.items.length} in all, newest first` })),
    list);
  if ((latest.total ?? 0) > latest.items.length) {
    const more = el("button", { type: "button", class: "linkish", text: "More papers" });
    more.addEventListener("click", async () => {
      const offset = list.querySelectorAll("li.paper").length;
      const page = await getJSON(`/api/topics/${encodeURIComponent(data.slug)}/papers?offset=${offset}&limit=20`);
      const items = page.items || page.papers || [];
      list.append(...items.map(paperItem));
      if (!items.length || offset + items.length >= (page.total ?? 0)) more.remove();
    });
    section.append(more);
  }
  return section;
}

async function topicPage(slug) {
  const data = await getJSON(`/api/topics/${encodeURIComponent(slug)}`);
  document.title = `${data.name} · papertalk`;
  const abbreviations = Object.entries(data.abbreviations || {}).map(([s, l]) => `${s}: ${l}`).join(" · ");
  const head = el("section", { class: "topic-head" },
    el("div", { class: "title-row" }, el("h1", { text: data.name }), followButton(data)),
    abbreviations ? el("p", { class: "abbreviations", text: abbreviations }) : null,
    data.description ? el("p", { class: "muted", text: data.description }) : null);
  const latest = await latestOf(data);
  const main = el("div", { class: "col-main" }, overviewSection(data), latestSection(data, latest));
  const side = el("div", { class: "col-side" }, momentumSection(data.momentum),
    askPanel("Ask about this topic", { topic: data.slug }, `Ask about ${data.name}…`), relatedSection(data.related));
  show(head, el("div", { class: "columns" }, main, side));
}

// "Summarise this paper": its framing, method, results and limitations, each sentence cited with its page.
function summaryButton(paper) {
  const button = el("button", { type: "button", class: "follow summarize", text: "Summarise this paper" });
  button.addEventListener("click", async () => {
    const box = document.getElementById("summary");
    button.disabled = true;
    box.replaceChildren(el("p", { class: "muted", text: "Reading the paper…" }));
    try {
      const summary = await getJSON(`/api/papers/${encodeURIComponent(paper.paper_id)}/overview`);
      box.replaceChildren(el("section", { class: "summary" }, el("h2", { text: "Summary" }), renderOverview(summary)));
    } catch (error) {
      box.replaceChildren(failure(error));
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

async function paperPage(paperId) {
  const paper = await getJSON(`/api/papers/${encodeURIComponent(paperId)}`);
  const saved = (await getJSON("/api/saved").catch(() => [])).some((p) => p.paper_id === paper.paper_id);
  document.title = `${paper.title} · papertalk`;
  const links = el("p", { class: "links" });
  if (paper.link) links.append(el("a", { href: paper.link, target: "_blank", rel: "noopener", text: "arXiv page" }));
  if (paper.pdf_url) links.append(links.childNodes.length ? " · " : "", el("a", { href: paper.pdf_url, target: "_blank", text: "PDF" }));
  const topics = (paper.topics || []).map((t) => el("a", { class: "tag", href: topicHref(t), text: t }));
  show(el("article", { class: "paper-page card" },
    el("h1", { text: paper.title }),
    el("p", { class: "authors", text: (paper.authors || []).join(", ") || "Authors unknown" }),
    el("p", { class: "muted", text: [paper.published || "no date", ...(paper.categories || []), paper.pages ? `${paper.pages} pages` : "", paper.status].filter(Boolean).join(" · ") }),
    topics.length ? el("p", {}, ...topics) : null,
    el("h2", { text: "Abstract" }),
    el("p", { class: "abstract", text: paper.abstract || "No abstract (a PDF read without one)." }),
    links,
    el("p", { class: "actions" }, summaryButton(paper),
      toggleButton("follow save", `/api/papers/${encodeURIComponent(paper.paper_id)}/save`, saved,
        ["Save to reading list", "Saved ✓"])),
    el("div", { id: "summary" })),
  askPanel("Ask PDF", { paper_id: paper.paper_id }, "Ask this paper a question…"));
}

async function waitForUpload(uploadId, status) {
  for (let i = 0; i < 600; i++) {
    const upload = await getJSON(`/api/uploads/${encodeURIComponent(uploadId)}`);
    status.textContent = `Status: ${upload.status}${upload.known ? " (already known; not parsed again)" : ""}`;
    if (upload.status === "ready") return upload;
    if (upload.status === "failed") throw new Error(upload.reason || "the PDF could not be read");
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("the PDF is still being read; reload this page later");
}

function uploadPage() {
  const input = el("input", { type: "file", name: "file", accept: "application/pdf,.pdf", required: true });
  const status = el("p", { class: "muted", id: "upload-status", role: "status" });
  const form = el("form", { class: "upload-form" }, input, el("button", { type: "submit", text: "Upload and read" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!input.files.length) return;
    const body = new FormData();
    body.append("file", input.files[0]);
    status.textContent = "Uploading…";
    try {
      const upload = await getJSON("/api/uploads", { method: "POST", body });
      const ready = upload.status === "ready" ? upload : await waitForUpload(upload.upload_id, status);
      location.hash = paperHref(ready.paper_id);
    } catch (error) {
      status.replaceChildren(failure(error));
    }
  });
  show(el("section", { class: "card" }, el("h1", { text: "Ask your own PDF" }),
    el("p", { text: "Upload a PDF: papertalk reads it, then answers questions about it with citations to its pages." }),
    form, status));
}

async function route() {
  document.getElementById("passage").hidden = true;
  listNav = null;
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  const arg = decodeURIComponent(parts.slice(1).join("/"));
  try {
    if (parts[0] === "topic" && arg) await topicPage(arg);
    else if (parts[0] === "paper" && arg) await paperPage(arg);
    else if (parts[0] === "upload") uploadPage();
    else await homePage();
  } catch (error) {
    show(el("h1", { text: error.status === 404 ? "Not found" : "Something went wrong" }), failure(error),
      el("p", {}, el("a", { href: "#/", text: "Back to the topics" })));
  }
}

window.addEventListener("hashchange", route);
route();
