// The explorer page: asks /api/explore (run folders) or /api/translate (exports) and draws
// the n-best list, the attention heatmap (layer and head chosen), the beam search tree step by
// step and the top-k next tokens of each step. Plain DOM and SVG: no library, no build step.
"use strict";

const $ = (selector, root = document) => root.querySelector(selector);
let MODELS = [];

function element(tag, attributes = {}, text = null) {
  const svg = ["svg", "g", "rect", "text", "path", "title"].includes(tag);
  const node = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag)
                   : document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

async function post(path, body) {
  // A server with --api-key: the key goes in the body, since fetch refuses a header that is
  // not Latin-1 and a key may be any text.
  if ($("#api-key").value) body = {...body, api_key: $("#api-key").value};
  const headers = {"Content-Type": "application/json"};
  const response = await fetch(path, {method: "POST", headers, body: JSON.stringify(body)});
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

async function loadModels() {
  const answer = await (await fetch("/api/models")).json();
  MODELS = answer.models;
  $("#key-field").hidden = !answer.api_key_required;
  for (const select of [$("#model-a"), $("#model-b")]) {
    for (const model of MODELS) {
      select.append(element("option", {value: model.name},
        `${model.name} (${model.source}→${model.target}, ${model.kind})`));
    }
  }
  if (MODELS.length > 1) $("#model-b").value = MODELS[1].name;
}

// Where the model comes from: its languages (codes, else its training data's columns), the
// attribution its licence asks for, and its tokenizers' fingerprints.
function describeProvenance(model) {
  const side = (s, role) => !s ? "?" : s.code || (s.column !== null && s.data ?
    `column ${s.column} of ${s.data}` : s.data ? `the ${s.data} ${role}s` : "?");
  const parts = [];
  const languages = model.languages;
  if (languages && languages.source.code && languages.target.code) {
    parts.push(`${languages.source.code} → ${languages.target.code}`);
  } else if (languages) {  // no codes recorded: the pair it is served as, and what it learned
    parts.push(`served as ${model.source} → ${model.target}; trained on ` +
               `${side(languages.source, "source")} → ${side(languages.target, "target")}`);
  }
  const a = model.attribution;
  if (a) {
    parts.push(`from ${a.name || a.source}` + (a.licence ? ` (${a.licence})` : "") +
               (a.credit ? `, ${a.credit}` : "") +
               (a.changes && a.changes.length ? `; changes: ${a.changes.join("; ")}` : ""));
  }
  if (model.tokenizers) {
    parts.push(`tokenizers ${model.tokenizers.source.slice(0, 12)}… / ` +
               `${model.tokenizers.target.slice(0, 12)}…`);
  }
  return parts.join(" · ");
}

// A part of the panel the model cannot fill is hidden, and the reason is listed instead.
function hideBox(panel, selector, reason) {
  $(selector, panel).hidden = true;
  $(".hidden-reasons", panel).append(element("li", {}, reason));
}

function show(panel, view, model, why = {}) {
  const best = view.hypotheses[0];
  $(".model-name", panel).textContent = `${model.name}: ${model.model_class || model.kind}`;
  $(".provenance", panel).textContent = describeProvenance(model);
  $(".translation", panel).textContent = best.text;
  const body = $(".nbest tbody", panel);
  view.hypotheses.forEach((h, i) => {
    const tokens = (h.tokens || []).map((t, j) =>
      `${t} (${h.token_log_probs[j].toFixed(2)})`).join(" ");
    const row = element("tr", {class: "hypothesis"});
    for (const cell of [i + 1, h.text, h.score.toFixed(3),
                        h.log_prob === undefined ? "" : h.log_prob.toFixed(3), tokens]) {
      row.append(element("td", {}, String(cell)));
    }
    body.append(row);
  });
  if (view.attention) drawAttentionControls(panel, view, best);
  else hideBox(panel, ".attention-box", why.attention || (model.attention ?
    "attention: none for this sentence (it has no tokens)" : model.kind === "CTranslate2 export" ?
    "attention: a CTranslate2 export gives no attention weights" :
    "attention: this model has none (a plain LSTM encodes the source into one state)"));
  if (view.tree) drawTreeControls(panel, view);
  else hideBox(panel, ".tree-box", why.tree || (model.beam_tree ?
    "beam search tree: none for this sentence (it has no tokens)" :
    `beam search tree: a ${model.kind} searches inside its own graph; the tree (and per-head ` +
    "attention) need the Keras model of a run folder"));
}

function drawAttentionControls(panel, view, best) {
  const layers = view.attention.layers;
  const layerSelect = $(".layer", panel), headSelect = $(".head", panel);
  // One map (a recurrent model's attention, or an export's head average): no layer or head to
  // choose, and its label says what it is.
  const single = layers.length === 1 && layers[0].length === 1;
  $(".heads", panel).hidden = single;
  $(".attention-label", panel).textContent = view.attention.averaged || "";
  layers.forEach((_, i) => layerSelect.append(element("option", {value: i}, `${i + 1}`)));
  layerSelect.value = layers.length - 1;
  const fillHeads = () => {
    headSelect.replaceChildren();
    const heads = layers[layerSelect.value];
    heads.forEach((_, i) => headSelect.append(element("option", {value: i}, `${i + 1}`)));
    if (heads.length > 1) headSelect.append(element("option", {value: "mean"}, "mean"));
    headSelect.value = heads.length > 1 ? "mean" : 0;
  };
  const draw = () => {
    const heads = layers[layerSelect.value];
    let rows;
    if (headSelect.value === "mean") {
      rows = heads[0].map((row, i) => row.map((_, j) =>
        heads.reduce((sum, head) => sum + head[i][j], 0) / heads.length));
    } else {
      rows = heads[headSelect.value];
    }
    // An export's attention is its greedy translation's, whose tokens it names.
    drawHeatmap($(".heatmap", panel), rows, view.source_tokens,
                view.attention.target_tokens || best.tokens);
  };
  layerSelect.onchange = () => { fillHeads(); draw(); };
  headSelect.onchange = draw;
  fillHeads();
  draw();
}

function drawHeatmap(box, rows, sourceTokens, targetTokens) {
  const table = element("table", {class: "attention"});
  const head = element("tr");
  head.append(element("th"));
  sourceTokens.forEach(t => head.append(element("th", {class: "source"}, t)));
  table.append(head);
  rows.slice(0, targetTokens.length).forEach((row, i) => {
    const tr = element("tr");
    tr.append(element("th", {class: "target"}, targetTokens[i]));
    row.slice(0, sourceTokens.length).forEach((weight, j) => {
      const td = element("td", {class: "cell", "data-row": i, "data-col": j,
        title: `${targetTokens[i]} ← ${sourceTokens[j]}: ${weight.toFixed(3)}`});
      td.style.background = `rgba(31, 79, 181, ${Math.min(1, Math.max(0, weight))})`;
      tr.append(td);
    });
    table.append(tr);
  });
  box.replaceChildren(table);
}

// The label the tree shows for node "t.j" (step t + 1, rank j + 1), its token included.
function nodeLabels(steps) {
  const labels = {root: "<s> (the start)"};
  steps.forEach((step, t) => step.candidates.forEach((c, j) => {
    labels[c.id] = `“${c.text}” (step ${t + 1}, #${j + 1})`;
  }));
  return labels;
}

function drawTreeControls(panel, view) {
  const steps = view.tree.steps;
  const labels = nodeLabels(steps);
  const slider = $(".step", panel);
  slider.max = steps.length;
  slider.value = steps.length;
  const draw = () => {
    const upTo = Number(slider.value);
    $(".step-label", panel).textContent = `${upTo} of ${steps.length}`;
    const box = $(".tree", panel);
    drawTree(box, steps, upTo);
    // The newest step in sight: on open, the end of the search and its finished hypotheses.
    box.scrollLeft = box.scrollWidth;
    drawTopK($(".topk", panel), steps[upTo - 1], upTo, labels);
  };
  slider.oninput = draw;
  $(".play", panel).onclick = () => {
    slider.value = 1; draw();
    const timer = setInterval(() => {
      if (Number(slider.value) >= steps.length) { clearInterval(timer); return; }
      slider.value = Number(slider.value) + 1; draw();
    }, 600);
  };
  draw();
}

// Steps left to right (each column headed with its step), candidates of a step top to bottom
// in their rank order, each box labelled "#rank" as the top-k captions name it.
function drawTree(box, steps, upTo) {
  const width = 88, height = 34, boxWidth = 76, boxHeight = 26, top = 18;
  const rows = Math.max(...steps.map(s => s.candidates.length), 1);
  const svg = element("svg", {width: (upTo + 1) * width + 20, height: rows * height + 10 + top});
  const place = {root: [4, top + (rows * height) / 2 - boxHeight / 2]};
  const edges = element("g"), nodes = element("g");
  svg.append(edges, nodes);
  const root = element("g", {class: "node root", "data-id": "root"});
  root.append(element("rect", {x: place.root[0], y: place.root[1], width: boxWidth,
                               height: boxHeight, rx: 4}),
              element("text", {x: place.root[0] + 6, y: place.root[1] + 17}, "<s>"));
  nodes.append(root);
  steps.slice(0, upTo).forEach((step, t) => {
    const column = 4 + (t + 1) * width;
    nodes.append(element("text", {class: "step-header", x: column + 4, y: 12}, `step ${t + 1}`));
    step.candidates.forEach((c, rank) => {
      const x = column, y = top + 5 + rank * height;
      place[c.id] = [x, y];
      const [px, py] = place[c.parent] || place.root;
      edges.append(element("path", {class: `edge ${c.status}`,
        d: `M${px + boxWidth},${py + boxHeight / 2} C${px + boxWidth + 8},${py + boxHeight / 2} ${x - 8},${y + boxHeight / 2} ${x},${y + boxHeight / 2}`}));
      const g = element("g", {class: `node ${c.status}`, "data-id": c.id,
                              "data-parent": c.parent, "data-step": t});
      g.append(element("rect", {x, y, width: boxWidth, height: boxHeight, rx: 4}),
               element("text", {x: x + 4, y: y + 11}, `#${rank + 1} ${c.text}`),
               element("text", {x: x + 4, y: y + 23},
                       c.log_prob.toFixed(2) + (c.score !== undefined ? ` / ${c.score.toFixed(2)}` : "")),
               element("title", {}, `${c.text} (step ${t + 1}, #${rank + 1}): step log-prob ` +
                       `${c.token_log_prob.toFixed(3)}, total ${c.log_prob.toFixed(3)} (${c.status})`));
      nodes.append(g);
    });
  });
  box.replaceChildren(svg);
}

// The most probable next tokens of each hypothesis extended at step `upTo`, captioned with the
// label the tree shows for it.
function drawTopK(box, step, upTo, labels) {
  box.replaceChildren();
  for (const entry of step.top_k) {
    const table = element("table", {class: "topk-table"});
    table.append(element("caption", {},
      `step ${upTo}: after ${labels[entry.node] || entry.node}`));
    entry.texts.forEach((text, i) => {
      const tr = element("tr");
      const bar = element("span", {class: "bar"});
      bar.style.width = `${Math.round(entry.probs[i] * 120)}px`;
      const cell = element("td");
      cell.append(bar);
      tr.append(element("td", {}, text), cell, element("td", {}, entry.probs[i].toFixed(3)));
      table.append(tr);
    });
    box.append(table);
  }
}

async function translate(event) {
  event.preventDefault();
  const sentence = $("#sentence").value;
  const names = [$("#model-a").value, $("#model-b").value].filter(Boolean);
  const panels = $("#panels");
  panels.replaceChildren();
  $("#status").textContent = "translating…";
  const beam = Number($("#beam").value), topK = Number($("#topk").value);
  const alpha = Number($("#alpha").value);
  const sampling = $("#strategy").value === "sample";
  // Each panel answers for itself: a model that cannot do what was asked (a SavedModel asked
  // to sample) says so in its panel, beside the other model's answer.
  const failures = await Promise.all(names.map(async name => {
    const model = MODELS.find(m => m.name === name);
    const panel = $("#panel-template").content.firstElementChild.cloneNode(true);
    panels.append(panel);
    try {
      const beamSize = Math.min(beam, model.max_beam_size);
      if (sampling) {
        await showSamples(panel, model, sentence);
      } else {
        const view = await post("/api/explore", {model: name, q: sentence, beam_size: beamSize,
                                                 top_k: topK, length_penalty: alpha});
        show(panel, view, model);
      }
      return null;
    } catch (error) {
      cannot(panel, model, error.message);
      return error.message;
    }
  }));
  const failed = failures.filter(Boolean);
  $("#status").textContent = failed.length === names.length ? `error: ${failed[0]}` : "done";
}

// A panel the model could not fill: its name, and why, in place of empty boxes.
function cannot(panel, model, reason) {
  $(".model-name", panel).textContent = `${model.name}: ${model.model_class || model.kind}`;
  $(".provenance", panel).textContent = describeProvenance(model);
  for (const selector of [".nbest", ".attention-box", ".tree-box"]) $(selector, panel).hidden = true;
  for (const heading of panel.querySelectorAll("h3")) heading.hidden = true;
  $(".note", panel).textContent = `cannot: ${reason}`;
}

// Sampling: the sentence asked `samples` times in one request (each row draws its own tokens
// from the seeded generator, so the same seed gives the same samples).
async function showSamples(panel, model, sentence) {
  const settings = {temperature: Number($("#temperature").value),
                    top_k: Number($("#sample-topk").value), top_p: Number($("#top-p").value),
                    seed: Number($("#seed").value)};
  const count = Number($("#samples").value);
  const answer = await post("/api/translate", {model: model.name, strategy: "sample",
    q: Array(count).fill(sentence), ...settings});
  const hypotheses = answer.translations.map(row => ({...row[0], tokens: [], token_log_probs: []}));
  const why = "sampling draws each token; the attention and the tree show beam search";
  show(panel, {hypotheses, attention: null, tree: null}, model,
       {attention: `attention: ${why}`, tree: `beam search tree: ${why}`});
  $("h3", panel).textContent = "samples";
  $(".nbest thead th:nth-child(2)", panel).textContent = "sample";
  $(".note", panel).textContent = `${count === 1 ? "1 sample" : `${count} samples`}, ` +
    `temperature ${settings.temperature}, top-k ${settings.top_k || "all"}, ` +
    `top-p ${settings.top_p}, seed ${settings.seed}`;
}

function showStrategyOptions() {
  const sampling = $("#strategy").value === "sample";
  $("#beam-options").hidden = sampling;
  $("#sample-options").hidden = !sampling;
}

$("#strategy").addEventListener("change", showStrategyOptions);
$("#ask").addEventListener("submit", translate);
loadModels().catch(error => { $("#status").textContent = `error: ${error.message}`; });
