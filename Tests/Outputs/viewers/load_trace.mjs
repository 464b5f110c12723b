#!/usr/bin/env node
// Loads a Chrome trace-event JSON file into two third-party viewers' own code
// and prints one JSON summary on stdout:
//   (a) @paulirish/trace_engine: the trace engine of Chrome DevTools'
//       Performance panel (TraceModel.Model.createWithAllHandlers + parse);
//   (b) speedscope: the importer inside speedscope's shipped browser bundle,
//       run in a node:vm context.
// Usage: node load_trace.mjs NODE_MODULES_DIR TRACE.json
// NODE_MODULES_DIR: a folder where `npm install @paulirish/trace_engine
// speedscope` was run (it holds node_modules/), or that node_modules/ itself.
// Exit 0 whatever the viewers do (their failures are in the JSON); 2 on usage
// errors (bad arguments, packages not found, trace file unreadable).
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import zlib from 'node:zlib';
import {pathToFileURL} from 'node:url';

const USAGE = 'usage: node load_trace.mjs NODE_MODULES_DIR TRACE.json';

function usage(msg) {
  process.stderr.write(`load_trace: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function errText(e) {
  if (e instanceof Error || (e && typeof e === 'object' && 'message' in e)) {
    return `${e.name || 'Error'}: ${e.message}`;
  }
  return String(e);
}

// errText plus the innermost stack frame when it lies in a viewer's code
// (a package under node_modules, or the speedscope bundle run in the vm).
function errWhere(e) {
  const text = errText(e);
  const stack = typeof e?.stack === 'string' ? e.stack : '';
  const frame = /\n\s+at (?:.*? \()?([^\s()]+:\d+:\d+)\)?/.exec(stack);
  if (!frame) return text;
  const loc = frame[1].replace(/^file:\/\//, '');
  if (loc.includes('/node_modules/')) return `${text} [at ${loc.replace(/^.*\/node_modules\//, '')}]`;
  if (/^speedscope-[\w]+\.js:/.test(loc)) return `${text} [at speedscope/dist/release/${loc}]`;
  return text;
}

function fmtArgs(args) {
  return args.map(a => {
    if (typeof a === 'string') return a;
    if (a && typeof a === 'object' && 'message' in a && 'stack' in a) return errWhere(a);
    try {
      return JSON.stringify(a) ?? String(a);
    } catch {
      return String(a);
    }
  }).join(' ');
}

// A console that records instead of printing. warn/error/failed asserts are
// the viewers' warnings; log/info/debug go to `logs`.
function recordingConsole() {
  const warnings = [];
  const logs = [];
  const rec = (list, prefix) => (...args) => list.push(prefix + fmtArgs(args));
  const c = {
    log: rec(logs, ''), info: rec(logs, ''), debug: rec(logs, ''), trace: rec(logs, ''),
    warn: rec(warnings, 'console.warn: '),
    error: rec(warnings, 'console.error: '),
    assert: (cond, ...args) => {
      if (!cond) warnings.push('console.assert: ' + (args.length ? fmtArgs(args) : 'Assertion failed'));
    },
    time() {}, timeEnd() {}, timeLog() {}, group() {}, groupCollapsed() {}, groupEnd() {},
    table: rec(logs, ''), dir: rec(logs, ''), count() {}, countReset() {},
  };
  return {console: c, warnings, logs};
}

// Swap the real console for the recorder while fn runs (trace_engine runs in
// this realm and logs through the global console).
async function withConsole(rc, fn) {
  const saved = {};
  for (const k of Object.keys(rc.console)) {
    saved[k] = console[k];
    console[k] = rc.console[k];
  }
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(saved)) console[k] = saved[k];
  }
}

// Errors thrown asynchronously by a viewer after its promise settled must not
// kill the harness; they are kept and reported under the viewer running then.
let strayTarget = null;
const strayErrors = [];
function stray(kind, e) {
  const msg = `${kind}: ${errText(e)}`;
  (strayTarget || strayErrors).push(msg);
}
process.on('uncaughtException', e => stray('uncaught exception', e));
process.on('unhandledRejection', e => stray('unhandled rejection', e));

// ---------------------------------------------------------------- arguments
const [modulesArg, traceArg, ...extra] = process.argv.slice(2);
if (!modulesArg || !traceArg || extra.length) usage('expected exactly two arguments');

let modulesDir = path.resolve(modulesArg);
if (fs.existsSync(path.join(modulesDir, 'node_modules'))) modulesDir = path.join(modulesDir, 'node_modules');
const tePkgDir = path.join(modulesDir, '@paulirish', 'trace_engine');
const ssPkgDir = path.join(modulesDir, 'speedscope');
for (const d of [tePkgDir, ssPkgDir]) {
  if (!fs.existsSync(path.join(d, 'package.json'))) usage(`package not found: ${d}`);
}

let traceBytes;
try {
  traceBytes = fs.readFileSync(traceArg);
} catch (e) {
  usage(`cannot read ${traceArg}: ${e.message}`);
}
const traceName = path.basename(traceArg);

function pkgVersion(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version ?? null;
  } catch {
    return null;
  }
}

// ------------------------------------------------------ (a) DevTools engine
async function runTraceEngine() {
  const out = {ok: false, error: null, version: pkgVersion(tePkgDir), threads: [], warnings: [], ms: 0};
  const rc = recordingConsole();
  const t0 = performance.now();
  strayTarget = out.warnings;
  try {
    // The package's main module (models/trace/trace.js), as DevTools imports it.
    const pkg = JSON.parse(fs.readFileSync(path.join(tePkgDir, 'package.json'), 'utf8'));
    const Trace = await import(pathToFileURL(path.join(tePkgDir, pkg.main || 'models/trace/trace.js')).href);
    // DevTools runs in a page where DOMRect exists; the package's own
    // analyze-trace.mjs ships the polyfill it documents for Node.
    if (typeof globalThis.DOMRect === 'undefined') {
      try {
        const at = await import(pathToFileURL(path.join(tePkgDir, 'analyze-trace.mjs')).href);
        if (typeof globalThis.DOMRect === 'undefined' && at.polyfillDOMRect) at.polyfillDOMRect();
      } catch {
        // not needed to parse plain trace events
      }
    }

    // What DevTools' loader does with a file: gunzip if needed, JSON.parse,
    // take traceEvents (object form) or the array itself, pass metadata on.
    let text = traceBytes;
    if (text.length >= 3 && text[0] === 0x1f && text[1] === 0x8b && text[2] === 0x08) text = zlib.gunzipSync(text);
    let json;
    try {
      json = JSON.parse(text.toString('utf8'));
    } catch (e) {
      throw new Error(`JSON.parse failed: ${e.message}`);
    }
    const events = Array.isArray(json) ? json : json?.traceEvents;
    if (!Array.isArray(events)) throw new Error('no traceEvents array in the file');
    const metadata = (!Array.isArray(json) && json.metadata) || {};

    const parsed = await withConsole(rc, async () => {
      const model = Trace.TraceModel.Model.createWithAllHandlers();
      await model.parse(events, {metadata, isFreshRecording: false, isCPUProfile: false});
      const p = model.parsedTrace(model.size() - 1);
      if (!p) throw new Error('model.parsedTrace() returned null');
      return p;
    });
    const data = parsed.data;

    // The threads the Performance panel draws tracks for (threadsInTrace:
    // Renderer handler threads, else Samples handler CPU-profile threads).
    const threads = Trace.Handlers.Threads.threadsInTrace(data);
    for (const t of threads) {
      out.threads.push({
        pid: t.pid, tid: t.tid, name: t.name ?? null, type: t.type ?? null,
        events: t.entries?.length ?? 0,
        depth: t.tree?.maxDepth ?? null,
        // Slices left at dur 0: a B whose E the engine could not pair.
        zero_dur: (t.entries ?? []).filter(e => e.ph === 'X' && !e.dur).length,
      });
    }
    // Threads the Renderer handler kept but could not build a tree for (the
    // panel silently drops them).
    for (const [pid, proc] of data.Renderer?.processes ?? []) {
      for (const [tid, th] of proc.threads ?? []) {
        if (!th.tree) out.warnings.push(`Renderer thread pid ${pid} tid ${tid} (${th.name}) has no tree: not shown`);
      }
    }

    // Warnings the engine itself attaches to events (Warnings handler).
    for (const [kind, evs] of data.Warnings?.perWarning ?? []) {
      const first = evs[0];
      out.warnings.push(`Warnings handler: ${kind} on ${evs.length} event(s)` +
                        (first ? `, first "${first.name}" ts=${first.ts}` : ''));
    }
    // Insight warnings and insight errors.
    for (const [id, set] of parsed.insights ?? []) {
      for (const [key, m] of Object.entries(set.model ?? {})) {
        for (const w of m?.warnings ?? []) out.warnings.push(`insight ${id}/${key}: ${w}`);
      }
      for (const [key, e] of Object.entries(set.modelErrors ?? {})) {
        out.warnings.push(`insight ${id}/${key} error: ${errText(e)}`);
      }
    }
    out.ok = true;
  } catch (e) {
    out.error = errWhere(e);
  }
  out.warnings.unshift(...rc.warnings);
  out.ms = Math.round(performance.now() - t0);
  strayTarget = null;
  return out;
}

// ------------------------------------------------------------ (b) speedscope
// speedscope's npm package ships only its browser app (one esbuild IIFE
// bundle). Inside it the module src/import/index.ts is an esbuild lazy ESM
// module: `var INIT=re(()=>{...})` plus a namespace object built with
// `$l(NS,{importProfileGroupFromText:()=>...,importProfilesFromArrayBuffer:...})`
// that the app reaches with `Promise.resolve().then(()=>(INIT(),NS))`.
// We run the bundle in a vm context after inserting, right after INIT's
// definition, `globalThis.__speedscopeImport={init:INIT,ns:()=>NS};return;`,
// so the top-level UI code after it (preact render into document.body) does
// not run. The importer code itself is the bundle's, unmodified.
function loadSpeedscopeImporter(rc) {
  const releaseDir = path.join(ssPkgDir, 'dist', 'release');
  let bundleName = null;
  try {
    const html = fs.readFileSync(path.join(releaseDir, 'index.html'), 'utf8');
    bundleName = /<script[^>]*\bsrc="([^"]+\.js)"/.exec(html)?.[1] ?? null;
  } catch {
    // fall back to a directory scan
  }
  if (!bundleName) {
    bundleName = fs.readdirSync(releaseDir).find(f => /^speedscope-[\w]+\.js$/.test(f));
  }
  if (!bundleName) throw new Error(`speedscope bundle not found in ${releaseDir}`);
  const src = fs.readFileSync(path.join(releaseDir, bundleName), 'utf8');

  const id = String.raw`[\w$]+`;
  const esc = s => s.replace(/\$/g, '\\$');
  const nsM = new RegExp(String.raw`${id}\((${id}),\{[^}]*?importProfilesFromArrayBuffer:\(\)=>${id}`).exec(src);
  if (!nsM) throw new Error(`speedscope bundle ${bundleName}: import module namespace not found (bundle layout changed)`);
  const ns = nsM[1];
  const initM = new RegExp(String.raw`\(\)=>\((${id})\(\),${esc(ns)}\)`).exec(src);
  if (!initM) throw new Error(`speedscope bundle ${bundleName}: lazy init of the import module not found`);
  const init = initM[1];
  const defM = new RegExp(String.raw`var ${esc(init)}=${id}\(\(\)=>\{[^{}]*\}\);`).exec(src);
  if (!defM) throw new Error(`speedscope bundle ${bundleName}: definition of ${init} not found`);
  const at = defM.index + defM[0].length;
  const patched = src.slice(0, at) +
      `globalThis.__speedscopeImport={init:${init},ns:()=>${ns}};return;` + src.slice(at);

  // Minimal browser-ish globals the importer path needs.
  const sandbox = {
    console: rc.console,
    TextDecoder, TextEncoder, URL, atob, btoa,
    setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask,
    performance,
  };
  sandbox.window = sandbox;
  sandbox.self = sandbox;
  const ctx = vm.createContext(sandbox);
  vm.runInContext(patched, ctx, {filename: bundleName});
  const hook = ctx.__speedscopeImport;
  if (!hook) throw new Error('speedscope bundle did not reach the import module definition');
  hook.init();
  const api = hook.ns();
  if (typeof api.importProfilesFromArrayBuffer !== 'function') {
    throw new Error('speedscope import module has no importProfilesFromArrayBuffer');
  }
  return {api, bundleName};
}

async function runSpeedscope() {
  const out = {ok: false, error: null, version: pkgVersion(ssPkgDir), format: null, profiles: [], warnings: [], ms: 0};
  const rc = recordingConsole();
  const t0 = performance.now();
  strayTarget = out.warnings;
  try {
    const {api} = loadSpeedscopeImporter(rc);
    // The app's own path for a dropped / browsed / URL-loaded file: the bytes
    // as an ArrayBuffer plus the file name (the name picks the importer for
    // some formats, e.g. *.chrome.json), detection, then the importer.
    const ab = traceBytes.buffer.slice(traceBytes.byteOffset, traceBytes.byteOffset + traceBytes.byteLength);
    let group;
    try {
      group = await api.importProfilesFromArrayBuffer(traceName, ab);
    } finally {
      // speedscope logs which importer it picked ("Importing as ...").
      out.format = rc.logs.find(l => l.startsWith('Importing ')) ?? null;
    }
    if (!group) throw new Error('speedscope did not recognize the file (importer returned null: "Unrecognized format")');
    for (const p of group.profiles ?? []) {
      let depth = 0, maxDepth = 0, calls = 0;
      // The walk the flame chart is built from (append-order call tree).
      p.forEachCall(() => {
        calls++;
        depth++;
        if (depth > maxDepth) maxDepth = depth;
      }, () => {
        depth--;
      });
      let frames = 0;
      p.forEachFrame(() => frames++);
      out.profiles.push({
        name: p.getName(),
        frames,
        samples: Array.isArray(p.samples) ? p.samples.length : null,
        calls,
        weight: p.getTotalWeight(),
        unit: typeof p.getWeightUnit === 'function' ? p.getWeightUnit() : null,
        depth: maxDepth,
      });
    }
    if (out.profiles.length === 0) out.warnings.push('speedscope made no profile');
    out.ok = true;
  } catch (e) {
    out.error = errWhere(e);
  }
  out.warnings.unshift(...rc.warnings);
  out.ms = Math.round(performance.now() - t0);
  strayTarget = null;
  return out;
}

// What the file holds, to compare with what each viewer kept.
function inputSummary() {
  try {
    let buf = traceBytes;
    if (buf.length >= 3 && buf[0] === 0x1f && buf[1] === 0x8b && buf[2] === 0x08) buf = zlib.gunzipSync(buf);
    const json = JSON.parse(buf.toString('utf8'));
    const events = Array.isArray(json) ? json : json?.traceEvents;
    if (!Array.isArray(events)) return {events: null, phases: {}};
    const phases = {};
    for (const e of events) {
      const ph = String(e?.ph);
      phases[ph] = (phases[ph] || 0) + 1;
    }
    return {events: events.length, phases, unnamed: events.filter(e => e && e.ph !== 'M' && e.name === undefined).length};
  } catch (e) {
    return {events: null, phases: {}, error: errText(e)};
  }
}

const result = {trace: traceName, input: inputSummary(), trace_engine: await runTraceEngine(), speedscope: await runSpeedscope()};
// Let late async errors (if any) land before printing.
await new Promise(r => setImmediate(r));
if (strayErrors.length) result.stray_errors = strayErrors;
// Exit once the output is flushed, even if a viewer left a timer running.
process.stdout.write(JSON.stringify(result, null, 1) + '\n', () => process.exit(0));
