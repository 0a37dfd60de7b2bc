// hooks.mjs - the ESM resolve hook of the DISCO guest (docs/guest.md,
// "DISCO as a guest"): registered by driver.mjs before DISCO's code loads,
// it answers a few bare specifiers with the shims in ./shims/ and leaves
// every other import to Node.  DISCO's sources are not edited.
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
