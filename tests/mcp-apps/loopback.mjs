// Preloaded by the tests (`node --import ./loopback.mjs dist/index.js`): the official MCP Apps
// example servers listen on every interface (their main.ts passes host "0.0.0.0" and offers no
// option) with DNS-rebinding protection off. For the tests they must listen on 127.0.0.1 only,
// so every TCP listen with a port and no host, or another host, gets 127.0.0.1. The address
// actually bound is printed once listening, and the launcher (porthole-test-mcp's mcp_apps.rs)
// checks it before using the server.
import net from "node:net";

const LOOPBACK = "127.0.0.1";
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (first !== null && typeof first === "object" && !Array.isArray(first)) {
    if (first.path === undefined) args[0] = { ...first, host: LOOPBACK };
  } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof args[1] === "string") args[1] = LOOPBACK;
    else args.splice(1, 0, LOOPBACK);
  }
  this.once("listening", () => {
    const a = this.address();
    if (a && typeof a === "object") console.log(`porthole-loopback: listening on ${a.address}:${a.port}`);
  });
  return listen.apply(this, args);
};
