// hooks.mjs - the ESM resolve hook of the DISCO guest (docs/guest.md,
// "DISCO as a guest"): registered by driver.mjs before DISCO's code loads,
// it answers a few bare specifiers with the shims in ./shims/ and leaves
// every other import to Node.  DISCO's sources are not edited; one reader
// is added as the server's module loads (load, below).
const shim = (name) => new URL(`./shims/${name}`, import.meta.url).href;

const SHIMS = {
  "simple-peer": shim("simple-peer.mjs"),       // links become dlsim links
  "isomorphic-ws": shim("ws.mjs"),              // sockets become dlsim streams
  "uuid": shim("uuid.mjs"),                     // seeded ids
  "isomorphic-wrtc": shim("empty.mjs"),         // no WebRTC binary
  "@tensorflow/tfjs-node": shim("empty.mjs"),   // pure-JS @tensorflow/tfjs does the math
  "sharp": shim("sharp.mjs"),                   // image codec of @xenova/transformers, unused
  "onnxruntime-node": shim("empty.mjs"),        // likewise
};

export async function resolve(specifier, context, next) {
  const url = SHIMS[specifier];
  if (url !== undefined) return { url, shortCircuit: true };
  return next(specifier, context);
}

// #1110's DecentralizedController keeps its connection retry counter in a
// private field (server/src/controllers/decentralized_controller.ts,
// `#connectionRetry`, which handleTimeout increments and compares with
// maxConnectionRetry), which no code outside the class can read: as the
// built module loads, a getter that returns it, `dlsimConnectionRetry`, is
// added after the field's declaration.  Nothing else changes; a tree
// without the field (10b4be70) loads as it is.
const CONTROLLER = "/server/dist/controllers/decentralized_controller.js";
const FIELD = "#connectionRetry = 0;";

export async function load(url, context, next) {
  const r = await next(url, context);
  if (!url.endsWith(CONTROLLER) || r.source == null) return r;
  const src = Buffer.from(r.source).toString("utf8");
  if (!src.includes(FIELD)) return r;
  return { ...r, source: src.replace(FIELD, `${FIELD} get dlsimConnectionRetry() { return this.#connectionRetry; }`) };
}
