// isomorphic-ws, in memory: DISCO's client socket to its server
// (event_connection.ts WebSocketServer.connect) becomes the node's dlsim
// stream to S.  The driver (globalThis.__discoGuest) opens it on `start`,
// feeds it `msg ... stream` lines, and turns send() into `send S stream`.
const host = () => globalThis.__discoGuest;

export default class WebSocket {
  constructor(url) {
    this.url = String(url);
    this.binaryType = "arraybuffer";
    this.readyState = 0;          // CONNECTING
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
    this.onerror = null;
    host().socketCreated(this);
  }

  send(data) {
    if (this.readyState !== 1) throw new Error("WebSocket is not open");
    host().socketSend(this, Buffer.from(data));
  }

  close() {
    if (this.readyState >= 2) return;
    this.readyState = 2;          // CLOSING
    host().socketClose(this);
  }

  // called by the driver
  _opened() { this.readyState = 1; this.onopen?.({ target: this }); }
  _message(buf) {
    const data = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    this.onmessage?.({ data, target: this });
  }
  _closed() {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ target: this });
  }
}
WebSocket.WebSocket = WebSocket;
export { WebSocket };
