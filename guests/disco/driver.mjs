// driver.mjs - DISCO's own TypeScript as a dlsim guest (docs/guest.md,
// "DISCO as a guest").  One Node process hosts DISCO's real server
// (server/src/controllers/decentralized_controller.ts DecentralizedController)
// as node S and real DecentralizedClients
// (discojs/src/client/decentralized/decentralized_client.ts) as p1..pN, and
// maps dlsim's line protocol onto them:
//
//   - a client's WebSocket to the server (isomorphic-ws, shims/ws.mjs) is the
//     node's stream: every frame is a `send ... stream` line, both ways, and
//     the server gets one in-memory socket per client through
//     DecentralizedController.handle(ws);
//   - simple-peer (shims/simple-peer.mjs) is one end of a dlsim link: `open`
//     when DISCO's PeerPool makes the peer, `connect` once this end has sent
//     and received its signal (offer and answer travel through the real
//     server as SignalForPeer), dlsim's link-up is simple-peer's 'connect',
//     and every chunk DISCO's Peer writes is a `send ... link` line;
//   - the timers (setTimeout, setInterval, Date.now) run on a fake clock: a
//     line moves it to the line's time, a `deadline` line fires the node's
//     timers due by then, and the node's earliest timer is its `deadline`;
//   - training: each round is DISCO's e2e test's (server/tests/e2e/
//     decentralized.spec.ts simulateClient): onRoundBeginCommunication,
//     `train R` (dlsim's compute time), onRoundEndCommunication with the
//     weights injected, not trained: WeightsContainer.of four numbers drawn
//     from the peer's seed.
//
// TYPE is DISCO's message type name (client/messages.ts `type`), SIZE the
// bytes DISCO wrote (a msgpack frame; on a link the chunk with Peer's
// header), DATA those bytes in base64.
//
// With `--aggregation secure` the clients aggregate with DISCO's
// SecureAggregator (discojs/src/aggregator/secure.ts, the task's
// aggregationStrategy 'secure', as aggregator/get.ts getAggregator makes it):
// two communication rounds of shares, whose random seeds
// (generateRandomShare: crypto.getRandomValues) come from the peer's seed.
//
// On a tree with PR #1110 (its task has maxConnectionRetry) the three
// options below set the task's decentralized fields, as dlsim's [protocol]
// max_connection_retry, peer_connection_timeout and model_sync_timeout set
// the C machines' (guests/disco/guestify.sh passes them); unset, #1110's
// defaults (3, 60 000 ms, 30 000 ms).  10b4be70's task has no such fields
// and the options change nothing there.
//
// With --ordered-ids the server's id for pN begins with N (shims/uuid.mjs
// order), so that of two peers the one with the larger node number initiates
// their link (PeerPool.getPeers: `new Peer(id, id < this.id)`), as in
// dlsim's C machines (disco-peer-pool.c); without it the seeded UUIDs decide
// (docs/conformance.md, "Link initiators").
//
//     node driver.mjs [--disco-src DIR] [--aggregation mean|secure]   (or DISCO_SRC=DIR)
//                     [--max-connection-retry M] [--peer-connection-time MS]
//                     [--model-sync-time MS] [--ordered-ids]
import { EventEmitter } from "node:events";
import { createRequire, register } from "node:module";
import { createInterface } from "node:readline";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// tfjs greets on stdout, which is dlsim's: every log goes to stderr, and
// tfjs-backend-cpu's advice to install tfjs-node (a native binary) not at all
const toStderr = console.error;
for (const k of ["log", "info", "debug", "warn"])
  console[k] = (...a) => { if (!String(a[0]).includes("TensorFlow.js in Node.js")) toStderr(...a); };
const out = process.stdout;
const realSetImmediate = setImmediate;

// A guest that cannot start says why, and exits once it has read dlsim's
// first line: exiting before would race dlsim's write of it, and the error
// dlsim records would depend on which came first.
async function fail(text) {
  process.stderr.write(`disco guest: ${text}\n`);
  const rl = createInterface({ input: process.stdin });
  await new Promise((resolve) => { rl.once("line", resolve); rl.once("close", resolve); });
  process.exit(2);
}

// --- the checkout
let discoSrc = process.env.DISCO_SRC;
const argi = process.argv.indexOf("--disco-src");
if (argi >= 0) discoSrc = process.argv[argi + 1];
if (!discoSrc) await fail("no DISCO checkout: give --disco-src DIR or set DISCO_SRC (guests/disco/install.sh prepares one)");
if (!fs.existsSync(discoSrc)) await fail(`${discoSrc}: no such folder (DISCO_SRC or --disco-src)`);
discoSrc = fs.realpathSync(path.resolve(discoSrc));
const aggi = process.argv.indexOf("--aggregation");
const aggregation = aggi >= 0 ? process.argv[aggi + 1] : "mean";
if (aggregation !== "mean" && aggregation !== "secure")
  await fail(`--aggregation ${aggregation}: expected mean or secure`);
async function wholeArg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (!/^[0-9]+$/.test(v ?? "")) await fail(`${name} ${v ?? ""}: expected a whole number`);
  return Number(v);
}
// #1110's names (discojs/src/task/training_information.ts)
const fields1110 = {
  maxConnectionRetry: await wholeArg("--max-connection-retry"),
  maxPeerConnectionTime: await wholeArg("--peer-connection-time"),
  maxModelSyncTime: await wholeArg("--model-sync-time"),
};
const orderedIds = process.argv.includes("--ordered-ids");
const built = async (rel) => {
  const f = path.join(discoSrc, rel);
  if (!fs.existsSync(f)) await fail(`${f} is missing: run guests/disco/install.sh --disco-src ${discoSrc}`);
  return pathToFileURL(f).href;
};

// --- the fake clock (before DISCO's code loads)
const EPOCH_MS = 1_700_000_000_000;
let nowNs = 0;
let ctx = null;                       // the node whose code runs now
let timerSeq = 0;
const timers = new Map();             // id -> { id, owner, when, ms, fn, args, repeat }

class FakeTimeout {
  constructor(id) { this.id = id; }
  ref() { return this; }
  unref() { return this; }
  hasRef() { return true; }
  refresh() {
    const t = timers.get(this.id);
    if (t) t.when = nowNs + t.ms * 1e6;
    return this;
  }
  [Symbol.toPrimitive]() { return this.id; }
}

function addTimer(fn, ms, args, repeat) {
  ms = Number(ms);
  if (!(ms >= 1 && ms <= 2147483647)) ms = 1;      // as Node's timers
  const id = ++timerSeq;
  timers.set(id, { id, owner: ctx, when: nowNs + Math.round(ms * 1e6), ms, fn, args, repeat });
  return new FakeTimeout(id);
}
globalThis.setTimeout = (fn, ms, ...args) => addTimer(fn, ms, args, false);
globalThis.setInterval = (fn, ms, ...args) => addTimer(fn, ms, args, true);
globalThis.clearTimeout = globalThis.clearInterval = (h) => {
  if (h !== undefined && h !== null) timers.delete(typeof h === "object" ? h.id : Number(h));
};
Date.now = () => EPOCH_MS + Math.floor(nowNs / 1e6);

// crypto.getRandomValues (SecureAggregator.generateRandomShare seeds its
// shares with it): each peer's own stream, from its `new` seed; any other
// caller, the stream of hello's seed
let globalRandom = null;
const randomOf = () => peers.get(ctx)?.random ?? globalRandom;
Object.defineProperty(globalThis.crypto, "getRandomValues", {
  configurable: true,
  value: (array) => {
    const next = randomOf();
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < bytes.length; i += 8) {
      let v = next();
      for (let j = i; j < Math.min(i + 8, bytes.length); j++, v >>= 8n) bytes[j] = Number(v & 0xffn);
    }
    return array;
  },
});

function nextTimer(node) {
  let best = null;
  for (const t of timers.values())
    if (t.owner === node && (best === null || t.when < best.when || (t.when === best.when && t.id < best.id)))
      best = t;
  return best;
}

// let every promise continuation run (nothing here does real I/O)
async function drain() {
  for (let i = 0; i < 4; i++) await new Promise((r) => realSetImmediate(r));
}

// --- the answer to the current line
let actions = [];
function act(node, ...words) {
  if (node !== ctx) {
    process.stderr.write(`disco guest: ${node} acted during ${ctx}'s line: ${words.join(" ")} (dropped)\n`);
    return;
  }
  actions.push(words.join(" "));
}
const word = (s) => String(s).replace(/\s+/g, "-") || "-";
const text = (s) => String(s).replace(/\s+/g, " ").trim() || "-";

// --- DISCO's code, through the resolve hook
register("./hooks.mjs", import.meta.url);
const uuid = await import("./shims/uuid.mjs");
const disco = await import(await built("discojs/dist/index.js"));
const { PeerConnection } = await import(await built("discojs/dist/client/event_connection.js"));
const { DecentralizedController } = await import(await built("server/dist/controllers/decentralized_controller.js"));
const msgpack = createRequire(path.join(discoSrc, "discojs/package.json"))("@msgpack/msgpack");
const MsgType = disco.client.messages.type;

// the base model comes over HTTP in DISCO (Client.getLatestModel); the
// weights here are injected, so no model is fetched
disco.client.Client.prototype.getLatestModel = async function () { return undefined; };

// A frame's DISCO type name, from its msgpack `type` field.
function typeName(bytes) {
  try {
    const m = msgpack.decode(bytes);
    return { name: MsgType[m.type] ?? "Unknown", msg: m };
  } catch {
    return { name: "Unknown", msg: null };
  }
}

// --- the nodes
let rounds = 1;
let minParticipants = 1;
const peers = new Map();              // name -> peer state
const uuidToNode = new Map();
let server = null;                    // { controller, conns: Map peer -> socket, listed }

// numbers in [0, 1) from SEED (the shim's splitmix64)
function uniform(seed) {
  const next = uuid.splitmix64(seed);
  return () => Number(next() >> 11n) / 2 ** 53;
}

// The server's end of a client's socket: what DecentralizedController.handle
// reads (on 'message', on 'close') and writes (send).
class ServerSocket extends EventEmitter {
  constructor(peer) { super(); this.peer = peer; }
  send(data) {
    const bytes = Buffer.from(data);
    const { name, msg } = typeName(bytes);
    if (name === "NewDecentralizedNodeInfo") uuidToNode.set(msg.id, this.peer);
    // #1110: the controller's handleTimeout excludes a peer with ConnectionFail,
    // and signalWeightSharing ends the barrier with a StartWeightSharing a peer
    if (name === "ConnectionFail") act("S", "excluded", this.peer);
    if (name === "StartWeightSharing") server.starting++;
    if (name === "PeersForRound" && msg.aggregationRound + 1 > server.listed) {
      server.listed = msg.aggregationRound + 1;
      act("S", "list", server.listed, msg.peers.length + 1);
    }
    act("S", "send", this.peer, "stream", name, bytes.length, bytes.toString("base64"));
  }
}

function makeTask() {
  const task = disco.defaultTasks.cifar10.getTask();
  const info = { ...task.trainingInformation, minNbOfParticipants: minParticipants, aggregationStrategy: aggregation };
  if ("maxConnectionRetry" in info)
    for (const [k, v] of Object.entries(fields1110)) if (v !== undefined) info[k] = v;
  return { ...task, trainingInformation: info };
}

// the peer's aggregator: the mean as DISCO's e2e test makes it, or DISCO's
// own choice for a secure task (aggregator/get.ts getAggregator)
function makeAggregator(task) {
  return aggregation === "secure" ? disco.aggregator.getAggregator(task)
                                  : new disco.aggregator.MeanAggregator(0, 1, "relative");
}

async function runPeer(p) {
  try {
    await p.client.connect();
    // p.weights: the trainer's model (a #1110 sync replaces it, below)
    p.weights = disco.WeightsContainer.of(p.input);
    for (let r = 1; r <= rounds; r++) {
      await p.client.onRoundBeginCommunication();
      act(p.name, "train", r);
      await new Promise((resolve) => { p.trained = resolve; });
      const weights = await p.client.onRoundEndCommunication(p.weights);
      // #1110's Trainer (training/trainer.ts #runRounds): the round's
      // result is the model, then client.finishRound(result), which the
      // peer serves a late joiner (10b4be70's client has no finishRound)
      p.weights = weights;
      if (typeof p.client.finishRound === "function") p.client.finishRound(weights);
      // `round N r`: the server's round N ended (the aggregator took its
      // number from PeersForRound, setRound, and counted it done, add), the
      // peer's r-th: a late joiner's first round may be the server's third
      const n = Math.max(p.client.aggregator.round, 1);
      const w0 = (await weights.weights[0].data())[0];
      // the model it ends the round with, for dlsim's agreement property
      // (guest_agreement = on: every peer of a round holds the same one)
      const flat = [];
      for (const t of weights.weights) for (const v of await t.data()) flat.push(String(v));
      act(p.name, "model", flat.join(","));
      act(p.name, "round", n, r);
      act(p.name, "metric", "w0_ppm", Math.round(w0 * 1e6), n);
    }
    act(p.name, "state", "done");
    act(p.name, "finished");
  } catch (e) {
    // #1110: a ConnectionFail makes the client disconnect and throw this
    // (decentralized_client.ts onRoundEndCommunication): it was excluded
    const excluded = String(e?.message).includes("Client disconnected after connection failure");
    if (excluded) act(p.name, "excluded");
    if (!p.left || excluded) act(p.name, "failed", text(e?.message ?? e));
  }
}

// A method of a class, wrapped: before(this, args) runs first, after(this,
// args) once it returned.  A method the tree lacks (10b4be70 has none of
// #1110's) stays absent.
function around(proto, name, before, after) {
  const f = proto[name];
  if (typeof f !== "function") return;
  proto[name] = function (...args) {
    before?.(this, args);
    const r = f.apply(this, args);
    after?.(this, args);
    return r;
  };
}

// what the shims call
globalThis.__discoGuest = {
  socketCreated(sock) {
    const p = peers.get(ctx);
    if (p === undefined) throw new Error(`a WebSocket made outside a peer (${ctx})`);
    sock.node = p.name;
    p.sock = sock;
  },
  socketSend(sock, bytes) {
    act(sock.node, "send", "S", "stream", typeName(bytes).name, bytes.length, bytes.toString("base64"));
  },
  socketClose(sock) {
    const p = peers.get(sock.node);
    if (!p.left) act(sock.node, "disconnect");
    p.left = true;
    queueMicrotask(() => sock._closed());
  },
  peerCreated(sp) { sp.node = ctx; },
  peerSignalled(sp) { act(sp.node, "connect", sp.remote); },
  peerSend(sp, chunk) {
    // Peer's chunk: message id (2), chunk number (1), and on the first the
    // chunk count (1); a message in one chunk names its type
    const first = chunk.length >= 4 && chunk.readUInt8(2) === 0 && chunk.readUInt8(3) === 1;
    const name = first ? typeName(chunk.subarray(4)).name : "Chunk";
    // #1110's sendModel (decentralized_client.ts) sends #latestModel to a late
    // joiner: stale if the round it is in was listed and has not started
    // (below, `listed`), as the C provider's sync-served (S13a)
    if (name === "SharedModel")
      act(sp.node, "served", sp.remote, ...(peers.get(sp.node)?.listed ? ["stale"] : []));
    act(sp.node, "send", sp.remote, "link", name, chunk.length, chunk.toString("base64"));
  },
  peerDestroy(sp) {
    const p = peers.get(sp.node);
    if (p?.links.get(sp.remote) === sp) p.links.delete(sp.remote);
    act(sp.node, "close", sp.remote);
  },
};

// The facts dlsim counts for its C machines (docs/guest.md, "Facts"), from
// DISCO's methods.  #1110's DecentralizedController: handleTimeout is the
// connection barrier's timeout (`retry`, as the C coordinator observes one a
// timeout); signalWeightSharing sends the round's StartWeightSharings
// (`start N K`, the C coordinator's round start); reset, when the last
// connection closes, is the session's (`reset`).
// `retry N`: N is the controller's own counter, #connectionRetry (read through
// hooks.mjs's getter), as handleTimeout compares it with maxConnectionRetry:
// its value on entry plus the increment that is handleTimeout's first
// statement (`this.#connectionRetry += 1`).  On return it is that value, or 0
// where handleTimeout excluded (`this.#connectionRetry = 0`): anything else
// means the tree's handleTimeout is not #1110's, and the guest stops.
around(DecentralizedController.prototype, "handleTimeout",
  (c) => { server.retry = c.dlsimConnectionRetry + 1; act("S", "retry", server.retry); },
  (c) => {
    if (c.dlsimConnectionRetry !== server.retry && c.dlsimConnectionRetry !== 0)
      throw new Error(`handleTimeout left #connectionRetry at ${c.dlsimConnectionRetry}, not ${server.retry} or 0`);
  });
around(DecentralizedController.prototype, "signalWeightSharing", () => { server.starting = 0; },
  () => { if (server.starting > 0) act("S", "start", server.listed, server.starting); });
around(DecentralizedController.prototype, "reset", () => act("S", "reset"));
// S13a, from the client's own steps (decentralized_client.ts): a peer's round
// is `listed` from the moment establishPeerConnections takes the round's
// PeersForRound (it then calls aggregator.setRound with the list's round)
// until onRoundEndCommunication takes the StartWeightSharing (it then calls
// exchangeWeightUpdates) or a RetryPeerConnections, or getPeers fails (both
// call setAggregatorNodes(Set(ownId))).  In that window #roundFinishedPromise
// is unset (only a Start sets it), so handleSignalNewPeer's sendModel does
// not wait for the round under way and sends #latestModel, the previous
// round's result: the C peer's LINKING and WAIT_DECISION
// (protocol/disco/disco-peer-sync.c, the stale SYNC_SERVED).
around(disco.aggregator.Aggregator.prototype, "setRound", () => { const p = peers.get(ctx); if (p) p.listed = true; });
const Decentralized = disco.client.decentralized.DecentralizedClient.prototype;
around(Decentralized, "exchangeWeightUpdates", () => { const p = peers.get(ctx); if (p) p.listed = false; });
around(Decentralized, "setAggregatorNodes", (client, [nodes]) => {
  const p = peers.get(ctx);
  if (p && nodes.size <= 1) p.listed = false;
});
// Aggregator.add of a contribution of another round than the aggregator's
// (isValidContribution lets a later one in): the peer's `foreign`, as the
// C peer observes one (protocol/disco/disco-peer-exchange.c)
around(disco.aggregator.Aggregator.prototype, "add", (agg, [nodeId, , aggregationRound]) => {
  const from = uuidToNode.get(nodeId);
  if (aggregationRound !== agg.round && from !== undefined && from !== ctx && peers.has(ctx))
    act(ctx, "foreign", from, aggregationRound + 1);
});

// PeerPool.getPeers makes a Peer (over our SimplePeer) and connects it: here
// the SimplePeer learns which dlsim node the other end is, and opens its link
const connect = PeerConnection.prototype.connect;
PeerConnection.prototype.connect = function () {
  const sp = this.peer.peer;
  const remote = uuidToNode.get(this.peer.id);
  if (remote === undefined) throw new Error(`unknown peer id ${this.peer.id}`);
  sp.remote = remote;
  peers.get(sp.node).links.set(remote, sp);
  if (sp.initiator) act(sp.node, "open", remote, "initiator");
  else act(sp.node, "open", remote);
  const done = connect.call(this);
  sp._start();
  return done;
};

// an error nobody catches ends a Node client's process: the peer fails and
// its stream and links close (dlsim's disco family, [peers] runtime = node)
function uncaught(e) {
  const p = peers.get(ctx);
  if (p === undefined) {
    process.stderr.write(`disco guest: uncaught in ${ctx}: ${e?.stack ?? e}\n`);
    process.exit(1);
  }
  process.stderr.write(`disco guest: ${ctx}: uncaught: ${e?.message ?? e}\n`);
  if (p.left) return;
  p.left = true;
  act(ctx, "failed", text(`uncaught: ${e?.message ?? e}`));
  act(ctx, "disconnect");
}
process.on("unhandledRejection", uncaught);
process.on("uncaughtException", uncaught);

// --- the lines
async function handle(words) {
  const [verb, node] = words;
  switch (verb) {
    case "hello":
      uuid.seed(words[2]);
      globalRandom = uuid.splitmix64(BigInt(words[2]) ^ 0x5ec0e5n);
      rounds = Number(words[3]);
      minParticipants = Number(words[4]);
      return;
    case "new":
      if (words[2] === "coordinator") {
        server = { controller: new DecentralizedController(makeTask()), conns: new Map(), listed: 0, starting: 0 };
        act(node, "state", "serving");
      } else {
        const rand = uniform(words[3]);
        const p = {
          name: node, left: false, links: new Map(), sock: null, trained: null,
          input: [rand(), rand(), rand(), rand()],
          random: uuid.splitmix64(BigInt(words[3]) ^ 0x5ec0e5n),
        };
        peers.set(node, p);
        const task = makeTask();
        p.client = new disco.client.decentralized.DecentralizedClient(
          new URL("http://disco.invalid/"), task, makeAggregator(task));
        p.client.on("status", (s) => act(node, "state", word(s)));
        // #1110's Disco (training/disco.ts): a synced model replaces the
        // trainer's
        p.client.on("modelSynced", (w) => {
          p.weights = w;
          act(node, "synced", p.provider ?? "p0");
        });
        act(node, "state", "connecting");
        runPeer(p);
      }
      return;
    case "start":
      peers.get(node).sock._opened();
      return;
    case "msg": {
      const [, , , from, via, , data] = words;
      const bytes = Buffer.from(data, "base64");
      if (node === "S") {
        let ws = server.conns.get(from);
        if (ws === undefined) {
          ws = new ServerSocket(from);
          server.conns.set(from, ws);
          if (orderedIds) uuid.order(Number(from.slice(1)));
          server.controller.handle(ws);
          uuid.order(null);
        }
        ws.emit("message", bytes);
      } else if (via === "stream") {
        peers.get(node).sock?._message(bytes);
      } else {
        // #1110's SharedModel names the peer a synced model came from
        if (words[5] === "SharedModel") peers.get(node).provider = from;
        peers.get(node).links.get(from)?._data(bytes);
      }
      return;
    }
    case "deadline": {
      const until = Number(words[2]);
      for (let t = nextTimer(node); t !== null && t.when <= until; t = nextTimer(node)) {
        if (t.repeat) t.when += Math.round(t.ms * 1e6);
        else timers.delete(t.id);
        t.fn(...t.args);
        await drain();
      }
      return;
    }
    case "trained": {
      const p = peers.get(node);
      const go = p.trained;
      p.trained = null;
      go?.();
      return;
    }
    case "link-up":
      peers.get(node).links.get(words[3])?._up();
      return;
    case "link-failed":
      peers.get(node).links.get(words[3])?._gone("Ice connection failed.");
      return;
    case "link-closed":
      peers.get(node).links.get(words[3])?._gone(null);
      return;
    case "stream-closed":
      if (node === "S") {
        const ws = server.conns.get(words[3]);
        server.conns.delete(words[3]);
        ws?.emit("close");
      } else {
        peers.get(node).sock?._closed();
      }
      return;
    case "leave": {
      const p = peers.get(node);
      p.left = true;
      p.client.disconnect().catch(() => {});
      return;
    }
    case "free":
    case "bye":
      return;
    default:
      throw new Error(`unknown line: ${words.join(" ")}`);
  }
}

const TIMED = new Set(["start", "msg", "deadline", "trained", "link-up", "link-failed",
  "link-closed", "stream-closed", "leave"]);

async function line(text) {
  const words = text.split(" ");
  const [verb, node] = words;
  ctx = verb === "hello" || verb === "bye" ? null : node;
  if (TIMED.has(verb)) nowNs = Math.max(nowNs, Number(words[2]));
  actions = [];
  try {
    await handle(words);
  } catch (e) {
    uncaught(e);
  }
  await drain();
  if (verb !== "hello" && verb !== "bye" && verb !== "free") {
    const t = nextTimer(node);
    actions.push(t === null ? "deadline never" : `deadline ${t.when}`);
  }
  actions.push("quiet");
  out.write(actions.join("\n") + "\n");
  if (verb === "bye") process.exit(0);
}

let chain = Promise.resolve();
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (text) => { chain = chain.then(() => line(text)); });
rl.on("close", () => { chain.then(() => process.exit(0)); });
