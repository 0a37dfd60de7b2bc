// uuid, seeded: DISCO's server names each client with uuid v4
// (DecentralizedController.handle), and the ids decide which end of a link
// initiates (PeerPool.getPeers) and the order of immutable Maps.  The
// stream is splitmix64 from the seed of dlsim's `hello` line.
const MASK = (1n << 64n) - 1n;

// splitmix64 from SEED: a function giving the next 64-bit BigInt
export function splitmix64(seed) {
  let state = BigInt.asUintN(64, BigInt(seed));
  return () => {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  };
}

let next64 = splitmix64(0);
export function seed(s) { next64 = splitmix64(s); }

// order(N): the ids made until order(null) begin with N in 8 hex digits, so
// that the ids of p1, p2, ... sort as their node numbers (the driver's
// --ordered-ids); the rest of the id is the seeded stream's, as without it
let prefix = null;
export function order(n) { prefix = n === null ? null : n.toString(16).padStart(8, "0"); }

export function v4() {
  const hex = (next64().toString(16).padStart(16, "0") +
               next64().toString(16).padStart(16, "0")).split("");
  hex[12] = "4";                                         // version 4
  hex[16] = "89ab"[parseInt(hex[16], 16) & 3];           // variant 10xx
  if (prefix !== null) hex.splice(0, 8, ...prefix);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export default { v4, seed, order };
