// sharp (an image library with a native binary, imported by
// @xenova/transformers) is never called by the code the DISCO guest runs.
export default function sharp() {
  throw new Error("sharp is stubbed in the DISCO guest (guests/disco/shims/sharp.mjs)");
}
