// simple-peer, as one end of a dlsim link.  DISCO's Peer (peer.ts) wraps
// it: the signals it emits still travel through DISCO's server as
// SignalForPeer (PeerConnection.connect), and the driver
// (globalThis.__discoGuest) says `open` when the end is made and, at the
// initiator, `connect` when the answer to its offer comes back: both sides
// have signalled, and the link comes up link_setup later (as WebRTC's ICE
// starts from the offerer once it holds the answer; dlsim's disco family
// does the same, disco-peer-pool.c).  dlsim's link-up fires 'connect', and
// chunks go out as `send PEER link` lines.
import { EventEmitter } from "node:events";

const host = () => globalThis.__discoGuest;
// the max-message-size Peer reads from the offer/answer (peer.ts signal)
const SDP = "v=0\r\na=max-message-size:262144\r\n";

export default class SimplePeer extends EventEmitter {
  constructor(opts = {}) {
    super();
    this.initiator = !!opts.initiator;
    this.bufferSize = 0;          // nothing is ever buffered: dlsim carries it
    this.destroyed = false;
    this.node = null;             // set by the driver: this end's node
    this.remote = null;           // and the other end's
    host().peerCreated(this);
  }

  // the driver calls this once the remote end is known
  _start() {
    if (this.initiator) {
      queueMicrotask(() => this.emit("signal", { type: "offer", sdp: SDP }));
    }
  }

  signal(data) {
    if (this.destroyed) return;
    if (data.type === "offer" && !this.initiator) {
      queueMicrotask(() => this.emit("signal", { type: "answer", sdp: SDP }));
    } else if (data.type === "answer" && this.initiator) {
      host().peerSignalled(this);
    }
  }

  send(chunk) {
    if (this.destroyed) throw new Error("cannot send after peer is destroyed");
    host().peerSend(this, Buffer.from(chunk));
  }

  destroy(err) {
    if (this.destroyed) return;
    this.destroyed = true;
    host().peerDestroy(this);
    queueMicrotask(() => {
      if (err) this.emit("error", err);
      this.emit("close");
    });
  }

  // called by the driver
  _up() { if (!this.destroyed) this.emit("connect"); }
  _data(buf) { if (!this.destroyed) this.emit("data", buf); }
  _gone(why) {
    if (this.destroyed) return;
    this.destroyed = true;
    if (why) this.emit("error", new Error(why));
    this.emit("close");
  }
}
